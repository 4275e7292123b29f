import { formatCount } from '../util/format.js';
import { escapeHtml } from './html.js';

// Charts drawn on the server as SVG: nothing to load in the browser, the same picture in the
// status page and in a report mailed as a file.

/** Colours of the series, in order (distinguishable, also for the common colour blindnesses). */
const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#9c755f'];

export interface Series {
  name: string;
  /** One value per category. */
  values: number[];
}

/** A round number at or above `n` for the top of an axis (1, 2, 5 x 10^k). */
function niceMax(n: number): number {
  if (n <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(n));
  return ([1, 2, 5, 10].find((m) => m * p >= n) ?? 10) * p;
}

function legend(series: Series[], x: number, y: number): string {
  return series
    .map(
      (s, i) =>
        `<g transform="translate(${x + i * 120},${y})"><rect width="11" height="11" fill="${PALETTE[i % PALETTE.length]}"/>` +
        `<text x="16" y="10">${escapeHtml(s.name)}</text></g>`,
    )
    .join('');
}

/**
 * Vertical bars, one per category, the series stacked; an optional horizontal `limit` line (a
 * budget). Every bar has a <title> with its numbers (a tooltip in browsers).
 */
export function stackedBarChart(opts: {
  title: string;
  categories: string[];
  series: Series[];
  limit?: { value: number; label: string };
  unit?: string;
}): string {
  const width = 640;
  const height = 260;
  const left = 72;
  const bottom = 40;
  const top = 28;
  const plotH = height - top - bottom;
  const plotW = width - left - 10;
  const totals = opts.categories.map((_, i) => opts.series.reduce((n, s) => n + (s.values[i] ?? 0), 0));
  const max = niceMax(Math.max(0, ...totals, opts.limit?.value ?? 0));
  const y = (v: number) => top + plotH - (v / max) * plotH;
  const slot = plotW / Math.max(1, opts.categories.length);
  const barW = Math.min(56, slot * 0.6);
  const parts: string[] = [];
  for (let t = 0; t <= 4; t++) {
    const v = (max / 4) * t;
    parts.push(
      `<line class="axis" x1="${left}" x2="${width - 10}" y1="${y(v)}" y2="${y(v)}"/>` +
        `<text x="${left - 6}" y="${y(v) + 4}" text-anchor="end">${formatCount(v)}</text>`,
    );
  }
  opts.categories.forEach((cat, i) => {
    const x = left + slot * i + (slot - barW) / 2;
    let acc = 0;
    opts.series.forEach((s, k) => {
      const v = s.values[i] ?? 0;
      if (v <= 0) return;
      const h = (v / max) * plotH;
      parts.push(
        `<rect class="bar" x="${x.toFixed(1)}" y="${(y(acc) - h).toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}" fill="${PALETTE[k % PALETTE.length]}">` +
          `<title>${escapeHtml(`${cat} · ${s.name}: ${formatCount(v)}${opts.unit ? ` ${opts.unit}` : ''}`)}</title></rect>`,
      );
      acc += v;
    });
    parts.push(
      `<text x="${(x + barW / 2).toFixed(1)}" y="${height - bottom + 16}" text-anchor="middle">${escapeHtml(cat)}</text>`,
    );
  });
  if (opts.limit) {
    const ly = y(opts.limit.value);
    parts.push(
      `<line x1="${left}" x2="${width - 10}" y1="${ly}" y2="${ly}" stroke="#cf222e" stroke-dasharray="6 4" stroke-width="2"/>` +
        `<text x="${width - 12}" y="${ly - 5}" text-anchor="end" fill="#cf222e">${escapeHtml(opts.limit.label)}</text>`,
    );
  }
  parts.push(legend(opts.series, left, height - 14));
  return (
    `<svg class="chart" role="img" viewBox="0 0 ${width} ${height}" width="100%" style="max-width:${width}px" ` +
    `xmlns="http://www.w3.org/2000/svg" aria-label="${escapeHtml(opts.title)}"><title>${escapeHtml(opts.title)}</title>` +
    `<text x="${left}" y="16" font-weight="600">${escapeHtml(opts.title)}</text>${parts.join('')}</svg>`
  );
}
