// What a terminal of a given size makes of a program's output: the screen and its scrollback, as a
// terminal multiplexer (tmux, screen) keeps them. It follows the few sequences a line-oriented
// program writes (cursor up/down, carriage return, erase in line or display, colours) and counts
// the full-screen clears: "erase display" with the cursor in the top-left corner is one for tmux,
// which then pushes the whole screen into the scrollback.

// eslint-disable-next-line no-control-regex
const CSI = /^\x1b\[([0-9;?]*)([A-Za-z])/;

export interface Screen {
  /** Lines scrolled off the top, oldest first. */
  scrollback: string[];
  /** The visible rows, trailing blank rows left out. */
  rows: string[];
  /** Full-screen clears (ED from the top-left corner, ED 2/3, cursor home). */
  fullClears: number;
}

export function emulateTerminal(output: string, size: { columns: number; rows: number }): Screen {
  const screen: string[][] = Array.from({ length: size.rows }, () => []);
  const scrollback: string[] = [];
  let row = 0;
  let col = 0;
  let fullClears = 0;
  const lineFeed = () => {
    if (row < size.rows - 1) row++;
    else {
      scrollback.push(screen.shift()!.join('').trimEnd());
      screen.push([]);
    }
  };
  for (let i = 0; i < output.length; i++) {
    const ch = output[i]!;
    if (ch === '\x1b') {
      const m = CSI.exec(output.slice(i, i + 16));
      if (!m) continue;
      i += m[0].length - 1;
      const n = Math.max(1, Number(m[1]) || 1);
      const param = m[1] ?? '';
      if (m[2] === 'A') row = Math.max(0, row - n);
      else if (m[2] === 'B') row = Math.min(size.rows - 1, row + n);
      else if (m[2] === 'K') screen[row] = param === '2' ? [] : screen[row]!.slice(0, col);
      else if (m[2] === 'J') {
        if ((row === 0 && col === 0 && (param === '' || param === '0')) || param === '2' || param === '3')
          fullClears++;
        screen[row] = screen[row]!.slice(0, col);
        for (let r = row + 1; r < size.rows; r++) screen[r] = [];
      } else if (m[2] === 'H') {
        fullClears++;
        row = 0;
        col = 0;
      }
      continue;
    }
    if (ch === '\r') col = 0;
    else if (ch === '\n') {
      lineFeed();
      col = 0;
    } else {
      if (col >= size.columns) {
        lineFeed();
        col = 0;
      }
      const line = screen[row]!;
      while (line.length < col) line.push(' ');
      line[col++] = ch;
    }
  }
  const rows = screen.map((l) => l.join('').trimEnd());
  while (rows.length && rows.at(-1) === '') rows.pop();
  return { scrollback, rows, fullClears };
}
