import { conflicts, type EditedOutput } from '../sync/edited-outputs.js';
import { isolated } from './html.js';

// The part of the status page and of the HTML report that lists the outputs people edited (kept,
// never overwritten) and the conflicts among them (a new translation beside the edit), each with what
// to do: the same list and advice as `locsync status` (../sync/edited-outputs.ts, docs/review.md).

/** The heading and table (or a line saying there is none); `edited` undefined: not known. */
export function editedSection(edited: readonly EditedOutput[] | undefined): string {
  const list = edited ?? [];
  const open = conflicts(list).length;
  const heading = `<h2>Edited by people${list.length ? ` (${list.length}${open ? `, <span class="bad">${open} in conflict</span>` : ''})` : ''}</h2>`;
  if (!list.length) return `${heading}<p class="muted" id="edited">No output edited by people.</p>`;
  const rows = list.map((e) => {
    const segments = e.segment_conflicts ?? [];
    const list = segments.length
      ? `reviewed segments whose source changed<ul>${segments
          .map(
            (c) =>
              `<li>${isolated(c.where)}: reviewed ${isolated(c.reviewed)} (source was ${isolated(c.source_before)})${
                c.machine !== undefined ? `; new machine translation ${isolated(c.machine)}` : ''
              }${c.source !== undefined ? ` (source now ${isolated(c.source)})` : ''}</li>`,
          )
          .join('')}</ul>`
      : '';
    const state = e.new_translation
      ? `<span class="bad">conflict</span>: new translation ${isolated(e.new_translation)}${list ? `; ${list}` : ''}`
      : segments.length
        ? `<span class="bad">conflict</span>: ${list}`
        : '<span class="ok">kept</span>';
    const planned = e.new_translation_planned
      ? ' <span class="warn">(a new translation is planned)</span>'
      : '';
    const kind = e.new_translation || segments.length ? 'conflict' : 'kept';
    return `<tr class="${kind}"><td>${isolated(e.output)}</td><td>${state}${planned}</td><td class="advice">${isolated(e.advice)}</td></tr>`;
  });
  return `${heading}<p class="muted">Outputs that differ from what locsync wrote are never overwritten; a new translation goes beside them and the pair is a conflict until resolved (docs/review.md).</p>
<table id="edited"><thead><tr><th>output</th><th>state</th><th>what to do</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}
