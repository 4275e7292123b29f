import type { IncomingMessage, ServerResponse } from 'node:http';
import { formatCount, formatDuration, formatPercent } from '../util/format.js';
import { stackedBarChart } from './charts.js';
import { editedSection } from './edited-section.js';
import { qaSection } from './qa-section.js';
import { escapeHtml, htmlPage, isolated } from './html.js';
import { StatusPageCollector, type StatusPageData, type StatusPageSource } from './status-data.js';
import { lastRunOutOfView } from '../report/status-data.js';

// The status page of `locsync watch`, served on its metrics listener: `/` for people (it fetches
// `/status/fragment` every few seconds and swaps it in, no reload), `/status.json` for scripts.

const RUN_CLASS: Record<string, string> = {
  ok: 'ok',
  failed: 'bad',
  crashed: 'bad',
  interrupted: 'warn',
  stopped: 'ok',
  skipped: 'warn',
};

function runsTable(d: StatusPageData): string {
  if (!d.status.runs.length) return '<p class="muted">No runs yet.</p>';
  const ran = lastRunOutOfView(d.status);
  // The last run that ran, after the skipped runs that pushed it out of the last ones.
  const rows = [...d.status.runs, ...(ran ? [ran] : [])].map((r) => {
    const c = r.counts ?? {};
    const counts = ['translated', 'reused', 'unchanged', 'stale', 'failed']
      .filter((k) => c[k])
      .map((k) => `${k} ${formatCount(c[k]!)}`)
      .join(', ');
    const dur = r.finished_at ? formatDuration(Date.parse(r.finished_at) - Date.parse(r.started_at)) : '';
    return `<tr><td>#${r.id}</td><td>${escapeHtml(r.command)}</td><td>${escapeHtml(r.started_at.slice(0, 19).replace('T', ' '))}</td>
<td>${dur}</td><td class="${RUN_CLASS[r.status] ?? ''}">${escapeHtml(r.reason ? `${r.status} (${r.reason})` : r.status)}</td><td>${escapeHtml(counts)}</td>
<td class="num">${formatCount(r.billed_characters)}</td></tr>`;
  });
  return `<table id="runs"><thead><tr><th>run</th><th>command</th><th>started (UTC)</th><th>took</th><th>outcome</th><th>outputs</th><th class="num">billed</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** How the last finished run ended and what to do, when it did not complete. */
function lastOutcomeLine(d: StatusPageData): string {
  const o = d.status.last_outcome;
  if (!o?.advice) return '';
  return `<p id="last-outcome" class="${RUN_CLASS[o.status] ?? ''}">Run #${o.run} (${escapeHtml(o.command)}): ${escapeHtml(o.reason ? `${o.status} (${o.reason})` : o.status)}. What to do: ${isolated(o.advice)}</p>`;
}

function jobsTable(d: StatusPageData): string {
  const jobs = d.live
    ? d.live.jobs.map((j) => ({ ...j, age: j.age_seconds }))
    : d.status.inFlight.map((j) => ({
        mapping: j.mapping,
        file: j.file,
        target: j.target,
        phase: j.state,
        age: j.waited_seconds ?? 0,
        document_id: j.document_id,
      }));
  if (!jobs.length) return '<p class="muted" id="jobs">Nothing in flight.</p>';
  return `<table id="jobs"><thead><tr><th>document</th><th>language</th><th>phase</th><th class="num">for</th><th>document id</th></tr></thead><tbody>${jobs
    .map(
      (j) =>
        `<tr><td>${isolated(`${j.mapping}/${j.file}`)}</td><td>${isolated(j.target)}</td><td>${escapeHtml(j.phase)}</td><td class="num">${formatDuration(j.age * 1000)}</td><td class="muted">${isolated(j.document_id ?? '')}</td></tr>`,
    )
    .join('')}</tbody></table>`;
}

function failuresList(d: StatusPageData): string {
  if (!d.status.failures.length) return '<p class="muted" id="failures">No failures.</p>';
  return `<table id="failures"><thead><tr><th>document</th><th>language</th><th>what happened</th></tr></thead><tbody>${d.status.failures
    .map(
      (f) =>
        `<tr><td>${isolated(`${f.mapping}/${f.file}`)}${f.gave_up ? ' <span class="bad">(gave up)</span>' : ''}</td><td>${isolated(f.target)}</td>
<td><span class="bad">${escapeHtml(f.kind ?? 'error')}</span>: ${isolated(f.message ?? '')}<div class="advice">What to do: ${isolated(f.advice)}</div></td></tr>`,
    )
    .join('')}</tbody></table>`;
}

function billingChart(d: StatusPageData): string {
  const m = d.month;
  if (!m.rows.length && m.budget === null) return '<p class="muted">Nothing billed this month.</p>';
  return stackedBarChart({
    title: `Billed characters in ${m.month}: ${formatCount(m.total.billed_characters)}${m.budget !== null ? ` of ${formatCount(m.budget)} (${formatPercent(m.total.billed_characters, m.budget)})` : ''}`,
    categories: [m.month],
    series: m.rows.map((r) => ({ name: r.key, values: [r.billed_characters] })),
    unit: 'characters',
    ...(m.budget !== null ? { limit: { value: m.budget, label: `budget ${formatCount(m.budget)}` } } : {}),
  });
}

function progressTable(d: StatusPageData): string {
  const p = d.status.progress;
  if (!p) return '<p class="muted">Counting the outputs of each language…</p>';
  return `<table id="progress"><thead><tr><th>mapping</th><th>language</th><th class="num">outputs</th><th class="num">up to date</th><th class="num">flagged</th><th class="num">stale</th><th class="num">pending</th><th class="num">failed</th><th>done</th></tr></thead><tbody>${p
    .map(
      (r) =>
        `<tr><td>${isolated(r.mapping)}</td><td>${isolated(r.target)}</td><td class="num">${formatCount(r.outputs)}</td><td class="num">${formatCount(r.upToDate)}</td><td class="num">${formatCount(r.flagged)}</td><td class="num">${formatCount(r.stale)}</td><td class="num">${formatCount(r.pending)}</td><td class="num">${formatCount(r.failed)}</td>
<td><meter min="0" max="100" value="${r.percent}"></meter> ${r.percent}%</td></tr>`,
    )
    .join('')}</tbody></table>`;
}

/** The part of the page that is replaced on every refresh. */
export function renderStatusFragment(d: StatusPageData): string {
  const h = d.health;
  const t = d.live?.totals;
  const waiting = h?.queue_depth ?? 0;
  return `<p class="muted">${isolated(d.pipeline)} · updated <span id="updated">${escapeHtml(d.generatedAt.slice(11, 19))}</span> UTC</p>
${h ? `<p id="health" class="${h.ok ? 'ok' : 'bad'}">${h.ok ? 'Healthy: uploading as documents arrive.' : `Uploads stopped: ${isolated(h.problem ?? '')}`}</p>` : ''}
<div class="cards">
  <div class="card"><span class="muted">in flight</span><b id="in-flight">${formatCount(t ? t.uploading + t.atService + t.downloading : d.status.inFlight.length)}</b></div>
  <div class="card"><span class="muted">waiting (spooled)</span><b id="spooled">${formatCount(waiting)}</b></div>
  <div class="card"><span class="muted">translated since start</span><b id="done">${formatCount(t?.downloaded ?? 0)}</b></div>
  <div class="card"><span class="muted">failures</span><b id="failure-count" class="${d.status.failures.length ? 'bad' : ''}">${formatCount(d.status.failures.length)}</b></div>
  <div class="card"><span class="muted">billed this month</span><b id="billed-month">${formatCount(d.month.total.billed_characters)}</b></div>
</div>
<h2>Runs</h2>${lastOutcomeLine(d)}${runsTable(d)}
<h2>In flight</h2>${jobsTable(d)}
<h2>Failures</h2>${failuresList(d)}
${editedSection(d.status.edited)}
${qaSection(d.status.qa)}
<h2>Billing this month</h2>${billingChart(d)}
<h2>Progress by language</h2>${progressTable(d)}`;
}

const REFRESH_SCRIPT = `
(() => {
  const main = document.getElementById('status');
  const note = document.getElementById('connection');
  const every = Number(new URLSearchParams(location.search).get('refresh')) || 2000;
  async function refresh() {
    try {
      const res = await fetch('status/fragment', { cache: 'no-store' });
      if (!res.ok) throw new Error(res.status + ' ' + res.statusText);
      main.innerHTML = await res.text();
      note.textContent = '';
    } catch (err) {
      note.textContent = 'locsync is not answering (' + err.message + '); retrying…';
    } finally {
      setTimeout(refresh, every);
    }
  }
  setTimeout(refresh, every);
})();`;

export function renderStatusPage(d: StatusPageData): string {
  return htmlPage({
    title: `locsync — ${d.pipeline}`,
    body: `<h1>locsync watch</h1><p id="connection" class="warn" role="status"></p><main id="status">${renderStatusFragment(d)}</main>`,
    script: REFRESH_SCRIPT,
  });
}

export interface StatusPage {
  /** Answer `/`, `/status/fragment` and `/status.json`; false for any other path. */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  collector: StatusPageCollector;
}

const PAGES: Record<string, { type: string; render: (d: StatusPageData) => string }> = {
  '/': { type: 'text/html; charset=utf-8', render: renderStatusPage },
  '/status/fragment': { type: 'text/html; charset=utf-8', render: renderStatusFragment },
  '/status.json': { type: 'application/json', render: (d) => JSON.stringify(d, null, 2) },
};

export function createStatusPage(src: StatusPageSource): StatusPage {
  const collector = new StatusPageCollector(src);
  return {
    collector,
    handle(req, res) {
      const page = PAGES[(req.url ?? '/').split('?')[0] ?? '/'];
      if (!page) return false;
      collector.collect().then(
        (d) =>
          res.writeHead(200, { 'content-type': page.type, 'cache-control': 'no-store' }).end(page.render(d)),
        // The state did not answer (a PostgreSQL outage): the page says so and the script retries.
        (err: Error) =>
          res
            .writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
            .end(`the state cannot be read now: ${err.message}\n`),
      );
      return true;
    },
  };
}
