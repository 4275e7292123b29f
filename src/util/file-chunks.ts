import fsp from 'node:fs/promises';

// A file's bytes in chunks of at most 1 MiB, flat memory whatever its size. A stream of 1 MiB
// chunks allocates a 1 MiB buffer for every read, also for a file of 40 bytes: on a first sync of
// 30,000 small files (each hashed, copied and read back) that was most of the run's time, spent
// allocating and collecting (issue 51). A file that fits in one chunk is read at once, in a buffer
// of its size.

const CHUNK = 1 << 20;

export async function* fileChunks(file: string): AsyncGenerator<Buffer> {
  const handle = await fsp.open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (size <= CHUNK) {
      const all = await handle.readFile();
      if (all.length > 0) yield all;
      return;
    }
    for await (const chunk of handle.createReadStream({ highWaterMark: CHUNK, autoClose: false }))
      yield chunk as Buffer;
  } finally {
    await handle.close();
  }
}
