import { formatCount } from '../util/format.js';
import { escapeHtml, htmlPage, isolated } from '../web/html.js';
import type { ReviewDocument, ReviewData, ReviewSection } from './collect.js';
import type { DiffPart } from './diff.js';
import type { ReviewRow, Who } from './compare.js';
import { formatWording, WORDING_WORDS } from '../xliff/wording.js';

// `locsync review -o review.html`: one self-contained page (styles inline, no script, nothing loaded
// from the network) with a section per run (or one for a git ref), and in it, per changed document
// and language, the segments whose source or translation changed: source, previous translation,
// new translation, the changed words marked, placeholders and inline code drawn in place, and whose
// wording each translation is (a person's or the machine's) where that is known. Everything read
// from documents is escaped and isolated (<bdi dir="auto">): a right-to-left text stays in its cell
// and cannot reorder the page around it.

const STYLE = `
del { background: #ffebe9; color: #82071e; text-decoration: line-through; }
ins { background: #dafbe1; color: #055d20; text-decoration: none; }
@media (prefers-color-scheme: dark) { del { background: #67060c; color: #ffdcd7; } ins { background: #033a16; color: #aff5b4; } }
table.review td { width: 30%; white-space: pre-wrap; overflow-wrap: anywhere; }
table.review td.where { width: 10%; white-space: normal; color: var(--muted); font-size: .88em; }
article.doc { border: 1px solid var(--line); border-radius: 6px; padding: .4rem .9rem .8rem; margin: .8rem 0; }
article.doc h3 { font-size: 1rem; margin: .4rem 0; }
.tag { font-size: .8em; border: 1px solid var(--line); border-radius: 4px; padding: 0 .35rem; margin-left: .4rem; color: var(--muted); }
.tag.conflict { color: var(--bad); border-color: var(--bad); }
.none { color: var(--muted); font-style: italic; }
code.ph { font-family: ui-monospace, monospace; font-size: .92em; border: 1px solid #8250df; color: #8250df; border-radius: 3px; padding: 0 .15em; }
@media (prefers-color-scheme: dark) { code.ph { border-color: #d2a8ff; color: #d2a8ff; } }
.by { display: inline-block; font-size: .75em; border-radius: 4px; padding: 0 .35rem; margin-left: .4rem; border: 1px solid var(--line); color: var(--muted); }
.by.person { color: #9a6700; border-color: #9a6700; }
a.unit { font-family: ui-monospace, monospace; font-size: .85em; }
details.units ol { columns: 2; font-size: .88em; }
nav ul { margin: .2rem 0; padding-left: 1.2rem; }
`;

const KIND_LABEL: Record<ReviewRow['kind'], string> = {
  changed: 'changed',
  added: 'new segment',
  removed: 'segment removed',
};

/** A string file's rows are its keys. */
const KEY_LABEL: Record<ReviewRow['kind'], string> = {
  changed: 'changed',
  added: 'new key',
  removed: 'key removed',
};

/** What a tag says (the words status and the XLIFF docs use). */
const WHO_LABEL: Record<Who, string> = {
  person: WORDING_WORDS.person,
  machine: WORDING_WORDS.machine,
};

/** The anchor of a segment's XLIFF unit in its document's list of units. */
const unitAnchor = (docId: string, unit: string) => `${docId}-${unit}`;

/** One run of a text; a placeholder or inline code drawn as such, never left out. */
function partHtml(p: DiffPart): string {
  const text = escapeHtml(p.text);
  const shown = p.code
    ? `<code class="ph" title="placeholder or inline code, kept as it is">${text}</code>`
    : text;
  return p.kind === 'same' ? shown : `<${p.kind}>${shown}</${p.kind}>`;
}

/** Text of a document with its changes marked, isolated; `lang` for the fonts of its language. */
function marked(parts: readonly DiffPart[] | null, lang?: string, who?: Who): string {
  if (parts === null) return '<span class="none">none</span>';
  const by = who ? `<span class="by ${who}">${WHO_LABEL[who]}</span>` : '';
  return `<bdi dir="auto"${lang ? ` lang="${escapeHtml(lang)}"` : ''}>${parts.map(partHtml).join('')}</bdi>${by}`;
}

function rowHtml(r: ReviewRow, lang: string, docId: string): string {
  const label = (r.key === undefined ? KIND_LABEL : KEY_LABEL)[r.kind];
  const unit =
    r.unit === undefined
      ? ''
      : `<br><a class="unit" href="#${unitAnchor(docId, r.unit)}" title="its XLIFF unit id">${escapeHtml(r.unit)}</a>`;
  return `<tr class="${r.kind}"${r.unit === undefined ? '' : ` data-unit="${escapeHtml(r.unit)}"`}><td class="where">${isolated(r.where)}<br>${label}${unit}</td><td class="source">${marked(r.source)}</td><td class="previous">${marked(r.previous, lang, r.previous_by)}</td><td class="new">${marked(r.next, lang, r.next_by)}</td></tr>`;
}

const anchor = (section: ReviewSection, i: number) => `${section.id}-doc-${i + 1}`;

function documentHtml(d: ReviewDocument, id: string): string {
  const c = d.comparison;
  const facts = [
    d.source ? `source ${isolated(d.source)}` : 'source unknown',
    `new translation ${isolated(d.new_translation)}`,
    c.unchanged
      ? `${formatCount(c.unchanged)} unchanged segment${c.unchanged === 1 ? '' : 's'} not shown`
      : '',
    d.wording
      ? `<span class="wording">segments now: ${escapeHtml(formatWording(d.wording.counts))}</span>`
      : '',
  ].filter(Boolean);
  const notes = d.notes.map((n) => `<p class="warn">${isolated(n)}</p>`).join('');
  const body = d.error
    ? `<p class="bad">Could not be read: ${isolated(d.error)}</p>`
    : c.rows.length === 0
      ? '<p class="muted">No segment changed (only what is around the text: layout, formatting).</p>'
      : `<table class="review"><thead><tr><th>where</th><th>source</th><th>previous translation</th><th>new translation</th></tr></thead><tbody>${c.rows
          .map((r) => rowHtml(r, d.language, id))
          .join('')}</tbody></table>`;
  return `<article class="doc" id="${id}" data-output="${escapeHtml(d.output)}" data-language="${escapeHtml(d.language)}">
<h3>${isolated(d.output)}<span class="tag">${isolated(d.language)}</span><span class="tag ${d.state}">${escapeHtml(d.state === 'new' ? 'new document' : d.state)}</span></h3>
<p class="muted">${facts.join(' · ')}</p>${notes}${body}${unitsHtml(d, id)}</article>`;
}

/**
 * The document's XLIFF unit ids (those of `locsync xliff export`, which its import recognises),
 * one per segment with where it sits and whose wording it is: a reviewer finds a row's unit in a
 * translator's file, and a translator's unit on the page.
 */
function unitsHtml(d: ReviewDocument, id: string): string {
  if (!d.wording?.units.length) return '';
  const items = d.wording.units
    .map(
      (u) =>
        `<li id="${unitAnchor(id, u.id)}" data-unit="${escapeHtml(u.id)}"><code>${escapeHtml(u.id)}</code> ${isolated(u.where)} <span class="muted">${escapeHtml(WORDING_WORDS[u.wording])}</span></li>`,
    )
    .join('');
  return `<details class="units"><summary>XLIFF unit ids (${formatCount(d.wording.units.length)})</summary><ol>${items}</ol></details>`;
}

function sectionHtml(s: ReviewSection): string {
  const docs = s.documents.length
    ? s.documents.map((d, i) => documentHtml(d, anchor(s, i))).join('\n')
    : '<p class="muted">No translation changed.</p>';
  return `<section id="${escapeHtml(s.id)}"><h2>${isolated(s.title)}</h2>\n${docs}</section>`;
}

function contents(sections: readonly ReviewSection[]): string {
  const items = sections.map(
    (s) =>
      `<li><a href="#${escapeHtml(s.id)}">${isolated(s.title)}</a>${
        s.documents.length
          ? `<ul>${s.documents
              .map(
                (d, i) =>
                  `<li><a href="#${anchor(s, i)}">${isolated(d.output)}</a> <span class="muted">${formatCount(d.comparison.rows.length)} segment${d.comparison.rows.length === 1 ? '' : 's'}</span></li>`,
              )
              .join('')}</ul>`
          : ''
      }</li>`,
  );
  return `<nav><ul>${items.join('')}</ul></nav>`;
}

export function renderReviewPage(d: ReviewData): string {
  const documents = d.sections.reduce((n, s) => n + s.documents.length, 0);
  const rows = d.sections.reduce(
    (n, s) => n + s.documents.reduce((m, x) => m + x.comparison.rows.length, 0),
    0,
  );
  const body = `<h1>Translation review</h1>
<p class="muted">${isolated(d.pipeline)} · made ${escapeHtml(d.generatedAt)} · compared with ${isolated(d.since)}</p>
<div class="cards">
  <div class="card"><span class="muted">documents changed</span><b id="documents">${formatCount(documents)}</b></div>
  <div class="card"><span class="muted">segments to read</span><b id="segments">${formatCount(rows)}</b></div>
</div>
<p class="muted">Only the segments whose source or translation changed are shown. <del>struck through</del>: gone; <ins>highlighted</ins>: new; <code class="ph">{name}</code>: a placeholder or inline code, kept as it is. <span class="by person">${WORDING_WORDS.person}</span>: a person's wording (a reviewer's correction or a translator's, kept by locsync); <span class="by machine">${WORDING_WORDS.machine}</span>: the service's translation. Each segment's XLIFF unit id (<code>locsync xliff export</code>) links to its document's list of units.</p>
${contents(d.sections)}
${d.sections.map(sectionHtml).join('\n')}`;
  return htmlPage({ title: `locsync review — ${d.pipeline}`, body, style: STYLE });
}
