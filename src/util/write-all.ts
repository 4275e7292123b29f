import type fsp from 'node:fs/promises';
import path from 'node:path';

// Every byte or a failure. write(2) may write fewer bytes than it was given (a filesystem running
// out of room writes what fits and answers the count): a caller that takes the call for the whole
// buffer delivers a cut-off file. writeAll writes the rest until it is all there or the filesystem
// refuses (ENOSPC). It is the one write of the files locsync delivers (./part-file.ts, ./spool.ts).
//
// LOCSYNC_FAULT_DISK_FULL=<folder>:<bytes> makes the files under <folder> run out of room after
// <bytes> bytes in this process, the way a full disk does (a short write, then ENOSPC), for tests
// and for users rehearsing a full disk without filling one.

interface DiskFault {
  folder: string;
  room: number;
}

let fault: DiskFault | undefined;
let faultSpec: string | undefined;

function diskFault(): DiskFault | undefined {
  const spec = process.env.LOCSYNC_FAULT_DISK_FULL;
  if (spec !== faultSpec) {
    faultSpec = spec;
    const m = spec ? /^(.*):(\d+)$/.exec(spec) : null;
    fault = m ? { folder: path.resolve(m[1] as string), room: Number(m[2]) } : undefined;
  }
  return fault;
}

/** How many of `want` bytes the simulated full disk takes for `file` (all without the fault). */
function room(file: string, want: number): number {
  const f = diskFault();
  if (!f || !path.resolve(file).startsWith(f.folder + path.sep)) return want;
  const fits = Math.min(want, f.room);
  f.room -= fits;
  return fits;
}

function noSpace(file: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOSPC: no space left on device, write '${file}'`), {
    code: 'ENOSPC',
    errno: -28,
    syscall: 'write',
    path: file,
  });
}

/** Write all of `buf` at the file's current position (`file` names it in errors). */
export async function writeAll(fh: fsp.FileHandle, buf: Buffer, file: string): Promise<void> {
  let at = 0;
  while (at < buf.length) {
    const fits = room(file, buf.length - at);
    if (fits === 0) throw noSpace(file);
    const { bytesWritten } = await fh.write(buf, at, fits);
    // A write that takes nothing and reports no error: the disk is full all the same.
    if (bytesWritten === 0) throw noSpace(file);
    at += bytesWritten;
  }
}
