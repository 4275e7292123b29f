// The typed HTTP client of the translation service (spec/style-rules.md, spec/document-translation.md
// and the extensions of design.md): the one object the rest of locsync talks to the service through
// (docs/client.md). It holds the transport (./transport.ts: rate limit, retries, typed errors) and
// offers the endpoint modules' calls as its methods.

import { clientSettings, type ClientOptions } from './client-settings.js';
import * as documents from './document-calls.js';
import type { DownloadedDocument, DownloadOptions } from './document-calls.js';
import type { AccountGate } from './rate-limiter.js';
import * as styleRules from './style-rules.js';
import { translateText } from './text-calls.js';
import { ServiceTransport, type CallOptions, type ServiceCall } from './transport.js';
import type {
  ConfiguredRules,
  CreateStyleRuleListRequest,
  CustomInstruction,
  CustomInstructionInput,
  DocumentStatus,
  ListStyleRulesQuery,
  ListStyleRulesResponse,
  PatchStyleRuleListRequest,
  StyleRuleList,
  StyleRuleListSummary,
  TranslateTextRequest,
  TranslateTextResponse,
  UploadDocumentRequest,
  UploadDocumentResponse,
  UsageResponse,
} from './types.js';

export class ServiceClient {
  readonly baseUrl: string;
  readonly plan: 'pro' | 'free';
  private readonly transport: ServiceTransport;

  constructor(opts: ClientOptions) {
    this.transport = new ServiceTransport(clientSettings(opts));
    this.baseUrl = this.transport.baseUrl;
    this.plan = this.transport.plan;
  }

  /** Share the account's request limits with other processes (see AccountGate). */
  shareAccountLimits(gate: AccountGate): void {
    this.transport.shareAccountLimits(gate);
  }

  /** Close idle keep-alive connections (the client stays usable). */
  close(): void {
    this.transport.close();
  }

  /**
   * One call with this client's rate limit, retry rules and typed errors, for endpoint modules
   * (./glossaries.ts). A `create` call the service may have taken throws UploadMaybeAcceptedError.
   */
  request<T>(call: ServiceCall, opts: CallOptions = {}): Promise<T> {
    return this.transport.request<T>(call, opts);
  }

  // ---- Style rules (/v3, professional plan only): ./style-rules.ts ----

  listStyleRules(q: ListStyleRulesQuery = {}): Promise<ListStyleRulesResponse> {
    return styleRules.listStyleRules(this.transport, q);
  }

  /** Every style rule list, walking the pages (page_size 25) until a short page. */
  listAllStyleRules(opts: { detailed: true }): Promise<StyleRuleList[]>;
  listAllStyleRules(opts?: { detailed?: boolean }): Promise<StyleRuleListSummary[]>;
  listAllStyleRules(opts: { detailed?: boolean } = {}): Promise<StyleRuleListSummary[]> {
    return styleRules.listAllStyleRules(this.transport, opts);
  }

  createStyleRules(req: CreateStyleRuleListRequest): Promise<StyleRuleList> {
    return styleRules.createStyleRules(this.transport, req);
  }

  getStyleRules(id: string): Promise<StyleRuleList> {
    return styleRules.getStyleRules(this.transport, id);
  }

  patchStyleRules(id: string, req: PatchStyleRuleListRequest): Promise<StyleRuleList> {
    return styleRules.patchStyleRules(this.transport, id, req);
  }

  /** Replace every configured rule of a list (extension of the real service, design.md). */
  putConfiguredRules(id: string, rules: ConfiguredRules): Promise<StyleRuleList> {
    return styleRules.putConfiguredRules(this.transport, id, rules);
  }

  deleteStyleRules(id: string): Promise<void> {
    return styleRules.deleteStyleRules(this.transport, id);
  }

  addCustomInstruction(id: string, input: CustomInstructionInput): Promise<StyleRuleList> {
    return styleRules.addCustomInstruction(this.transport, id, input);
  }

  getCustomInstruction(id: string, iid: string): Promise<CustomInstruction> {
    return styleRules.getCustomInstruction(this.transport, id, iid);
  }

  replaceCustomInstruction(
    id: string,
    iid: string,
    input: CustomInstructionInput,
  ): Promise<CustomInstruction> {
    return styleRules.replaceCustomInstruction(this.transport, id, iid, input);
  }

  deleteCustomInstruction(id: string, iid: string): Promise<void> {
    return styleRules.deleteCustomInstruction(this.transport, id, iid);
  }

  // ---- Usage (/v2/usage): what the service counted in its billing period ----

  getUsage(): Promise<UsageResponse> {
    return this.transport.request<UsageResponse>({ method: 'GET', path: '/v2/usage' });
  }

  // ---- Text (/v2/translate): ./text-calls.ts ----

  translateText(req: TranslateTextRequest, opts: CallOptions = {}): Promise<TranslateTextResponse> {
    return translateText(this.transport, req, opts);
  }

  // ---- Documents (/v2/document): ./document-calls.ts ----

  uploadDocument(
    filePath: string,
    req: UploadDocumentRequest,
    opts: CallOptions = {},
  ): Promise<UploadDocumentResponse> {
    return documents.uploadDocument(this.transport, filePath, req, opts);
  }

  getDocumentStatus(id: string, key: string, opts: CallOptions = {}): Promise<DocumentStatus> {
    return documents.getDocumentStatus(this.transport, id, key, opts);
  }

  downloadDocument(
    id: string,
    key: string,
    destPath: string,
    opts: DownloadOptions = {},
  ): Promise<DownloadedDocument> {
    return documents.downloadDocument(this.transport, id, key, destPath, opts);
  }
}
