// The pieces every locsync web page is made of: escaping, and one self-contained page (styles
// inline, no external file, font or script), so that a page works offline and as an attachment.

export function escapeHtml(s: string | number | null | undefined): string {
  return String(s ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/**
 * Text that comes from outside — file, folder and mapping names, the service's messages, paths —
 * escaped and isolated (<bdi>): a right-to-left character in it (an override, U+202E, in a file
 * name) stays inside and cannot reorder the page's own words around it.
 */
export function isolated(s: string | number | null | undefined): string {
  return `<bdi>${escapeHtml(s)}</bdi>`;
}

const STYLE = `
:root { color-scheme: light dark; --fg: #1b1f24; --muted: #5b6470; --line: #d8dde3; --bg: #fff;
  --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --card: #f6f8fa; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #9aa4ae; --line: #30363d;
  --bg: #0d1117; --card: #161b22; --ok: #3fb950; --bad: #f85149; --warn: #d29922; } }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg);
  background: var(--bg); margin: 0 auto; padding: 1.2rem 1.5rem 3rem; max-width: 72rem; }
h1 { font-size: 1.35rem; margin: 0 0 .2rem; } h2 { font-size: 1.05rem; margin: 1.6rem 0 .5rem; }
.muted { color: var(--muted); } .ok { color: var(--ok); } .bad { color: var(--bad); } .warn { color: var(--warn); }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: .3rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); } td.num, th.num { text-align: right; }
.cards { display: flex; gap: .8rem; flex-wrap: wrap; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: .6rem .9rem; min-width: 9rem; }
.card b { display: block; font-size: 1.3rem; }
.advice { color: var(--muted); font-size: .92em; }
bdi { unicode-bidi: isolate; }
svg text { fill: var(--fg); font: 12px system-ui, sans-serif; } svg .axis { stroke: var(--line); }
`;

/**
 * A complete HTML document. `script` is inline JavaScript run after the body; `style`: CSS of the
 * page's own, after the shared rules.
 */
export function htmlPage(opts: { title: string; body: string; script?: string; style?: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeHtml(opts.title)}</title>
<style>${STYLE}${opts.style ?? ''}</style>
</head>
<body>
${opts.body}
${opts.script ? `<script>${opts.script}</script>` : ''}
</body>
</html>
`;
}
