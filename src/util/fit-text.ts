// Text made to fit a terminal's width: the live view's lines and the log lines above it. Widths count
// what the terminal shows (colour sequences take no column). A line that must say everything (a
// message) is wrapped between words; a line of figures drops its least useful figures first; a name
// is shortened in its middle, where a path says least.

// eslint-disable-next-line no-control-regex
const SGR = /\x1b\[[0-9;]*m/g;

/** Columns `s` takes on a terminal (colour sequences excluded; one column per character). */
export function visibleWidth(s: string): number {
  return [...s.replace(SGR, '')].length;
}

/**
 * Break `text` into lines of at most `width` columns between words; lines after the first start
 * with `indent`. A word longer than a line is cut (there is no other place to break it).
 */
export function wrapWords(text: string, width: number, indent = '  '): string[] {
  if (visibleWidth(text) <= width) return [text];
  const w = Math.max(width, indent.length + 8);
  const lead = /^\s*/.exec(text)![0];
  const lines: string[] = [];
  let line = lead;
  let empty = true;
  for (const word of text.slice(lead.length).split(/ +/)) {
    const candidate = empty ? line + word : `${line} ${word}`;
    if (empty || visibleWidth(candidate) <= w) line = candidate;
    else {
      lines.push(line);
      line = indent + word;
    }
    empty = false;
    while (visibleWidth(line) > w) {
      const chars = [...line];
      lines.push(chars.slice(0, w).join(''));
      line = indent + chars.slice(w).join('');
    }
  }
  lines.push(line);
  return lines;
}

/** One figure of a line, and how readily it goes when the line is too wide (undefined: never). */
export interface Segment {
  text: string;
  /** Lower goes first; absent: always shown. */
  drop?: number;
}

/**
 * Join `segments` with `sep`, leaving out the most droppable ones until the line fits `width`
 * (segments without `drop` always stay, in their order).
 */
export function fitSegments(segments: Segment[], width: number, sep = '  ', lead = ''): string {
  const kept = [...segments];
  const line = () => lead + kept.map((s) => s.text).join(sep);
  while (visibleWidth(line()) > width) {
    let at = -1;
    kept.forEach((s, i) => {
      if (s.drop !== undefined && (at < 0 || s.drop < (kept[at]!.drop as number))) at = i;
    });
    if (at < 0) break;
    kept.splice(at, 1);
  }
  return line();
}

/** `name` in at most `width` columns: its middle replaced by '…' when it is longer (at least 1 column). */
export function shortenMiddle(name: string, width: number): string {
  const chars = [...name];
  if (chars.length <= width) return name;
  if (width <= 1) return '…';
  const tail = Math.ceil((width - 1) / 2);
  const head = width - 1 - tail;
  return `${chars.slice(0, head).join('')}…${chars.slice(chars.length - tail).join('')}`;
}

/** Cut a line to `width` visible columns, its last one '…' (colour sequences kept, not counted). */
export function truncateLine(line: string, width: number): string {
  if (visibleWidth(line) <= width) return line;
  let visible = 0;
  let out = '';
  for (let i = 0; i < line.length && visible < width - 1; i++) {
    if (line[i] === '\x1b') {
      const end = line.indexOf('m', i);
      if (end > 0) {
        out += line.slice(i, end + 1);
        i = end;
        continue;
      }
    }
    out += line[i];
    visible++;
  }
  // A colour left open would run into the ellipsis and beyond.
  return `${out}…${out.includes('\x1b[') ? '\x1b[0m' : ''}`;
}

/** Every line of `text` wrapped between words to `columns` (one short of it: see ProgressView). */
export function wrapForTerminal(text: string, columns: number): string {
  const width = Math.max(20, columns - 1);
  return text
    .split('\n')
    .flatMap((l) => wrapWords(l, width, '    '))
    .join('\n');
}
