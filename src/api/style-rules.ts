// The style rule endpoints (/v3/style_rules, spec/style-rules.md; the professional plan only: on
// the free plan each is refused before anything is sent), and the extension of the real service
// that replaces every configured rule of a list (design.md).

import type { JsonCall, ServiceTransport } from './transport.js';
import type {
  ConfiguredRules,
  CreateStyleRuleListRequest,
  CustomInstruction,
  CustomInstructionInput,
  ListStyleRulesQuery,
  ListStyleRulesResponse,
  PatchStyleRuleListRequest,
  StyleRuleList,
  StyleRuleListSummary,
} from './types.js';

/** Page size used when walking every style rule list (the spec's maximum). */
const LIST_PAGE_SIZE = 25;

export function listStyleRules(
  t: ServiceTransport,
  q: ListStyleRulesQuery = {},
): Promise<ListStyleRulesResponse> {
  const searchParams: Record<string, string | number | boolean> = {};
  if (q.detailed !== undefined) searchParams.detailed = q.detailed;
  if (q.page_size !== undefined) searchParams.page_size = q.page_size;
  if (q.page !== undefined) searchParams.page = q.page;
  return styleCall(t, { method: 'GET', path: '/v3/style_rules', searchParams });
}

/** Every style rule list, walking the pages (page_size 25) until a short page. */
export async function listAllStyleRules(
  t: ServiceTransport,
  opts: { detailed?: boolean } = {},
): Promise<StyleRuleListSummary[]> {
  const all: StyleRuleListSummary[] = [];
  const seen = new Set<string>();
  for (let page = 0; ; page++) {
    const res = await listStyleRules(t, {
      detailed: opts.detailed ?? false,
      page_size: LIST_PAGE_SIZE,
      page,
    });
    const fresh = res.style_rules.filter((s) => !seen.has(s.style_id));
    for (const s of fresh) {
      seen.add(s.style_id);
      all.push(s);
    }
    // A short page ends the walk; so does a page of lists already seen (a server ignoring `page`).
    if (res.style_rules.length < LIST_PAGE_SIZE || fresh.length === 0) return all;
  }
}

export function createStyleRules(
  t: ServiceTransport,
  req: CreateStyleRuleListRequest,
): Promise<StyleRuleList> {
  return styleCall(t, { method: 'POST', path: '/v3/style_rules', json: req });
}

export function getStyleRules(t: ServiceTransport, id: string): Promise<StyleRuleList> {
  return styleCall(t, { method: 'GET', path: listPath(id) });
}

export function patchStyleRules(
  t: ServiceTransport,
  id: string,
  req: PatchStyleRuleListRequest,
): Promise<StyleRuleList> {
  return styleCall(t, { method: 'PATCH', path: listPath(id), json: req });
}

/** Replace every configured rule of a list (extension of the real service, design.md). */
export function putConfiguredRules(
  t: ServiceTransport,
  id: string,
  rules: ConfiguredRules,
): Promise<StyleRuleList> {
  return styleCall(t, { method: 'PUT', path: `${listPath(id)}/configured_rules`, json: rules });
}

export async function deleteStyleRules(t: ServiceTransport, id: string): Promise<void> {
  await styleCall(t, { method: 'DELETE', path: listPath(id) });
}

/**
 * Our spec answers the whole list after adding an instruction; the real service answers the new
 * instruction alone, and then the list is read.
 */
export async function addCustomInstruction(
  t: ServiceTransport,
  id: string,
  input: CustomInstructionInput,
): Promise<StyleRuleList> {
  const answer = await styleCall<StyleRuleList | CustomInstruction>(t, {
    method: 'POST',
    path: `${listPath(id)}/custom_instructions`,
    json: input,
  });
  return 'style_id' in answer ? answer : getStyleRules(t, id);
}

export function getCustomInstruction(
  t: ServiceTransport,
  id: string,
  iid: string,
): Promise<CustomInstruction> {
  return styleCall(t, { method: 'GET', path: instructionPath(id, iid) });
}

export function replaceCustomInstruction(
  t: ServiceTransport,
  id: string,
  iid: string,
  input: CustomInstructionInput,
): Promise<CustomInstruction> {
  return styleCall(t, { method: 'PUT', path: instructionPath(id, iid), json: input });
}

export async function deleteCustomInstruction(t: ServiceTransport, id: string, iid: string): Promise<void> {
  await styleCall(t, { method: 'DELETE', path: instructionPath(id, iid) });
}

/** A refusal on the free plan is a rejected promise, as the service's own refusals are. */
async function styleCall<T>(t: ServiceTransport, call: JsonCall): Promise<T> {
  t.requirePro(call);
  return t.request<T>(call);
}

function listPath(id: string): string {
  return `/v3/style_rules/${encodeURIComponent(id)}`;
}

function instructionPath(id: string, iid: string): string {
  return `${listPath(id)}/custom_instructions/${encodeURIComponent(iid)}`;
}
