// Reading and writing zip packages in tests.
import yauzl from 'yauzl';
import yazl from 'yazl';

/** Every entry of a zip file, in order, uncompressed. */
export async function readZip(path: string): Promise<Map<string, Buffer>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true }, (err, z) => (err ? reject(err) : resolve(z))),
  );
  const out = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      zip.openReadStream(entry, (err, stream) => {
        if (err) return reject(err);
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          out.set(entry.fileName, Buffer.concat(chunks));
          zip.readEntry();
        });
        stream.on('error', reject);
      });
    });
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  return out;
}

/** A zip file from entries (compressed unless `store`). */
export function makeZip(entries: Array<[string, Buffer | string]>, store = false): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of entries) {
    zip.addBuffer(Buffer.isBuffer(content) ? content : Buffer.from(content), name, { compress: !store });
  }
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

/** Text of each element `paragraph` (local name), joining its `text` elements; in document order. */
export function paragraphs(xml: string, paragraph: string, text: string): string[] {
  const re = new RegExp(`<(/?)(?:[\\w]+:)?(${paragraph}|${text})(?:\\s[^>]*)?(/?)>`, 'g');
  const out: string[] = [];
  const stack: string[] = [];
  let textStart = -1;
  for (const m of xml.matchAll(re)) {
    const [tag, close, name, self] = m as unknown as [string, string, string, string];
    if (self) continue;
    if (name === paragraph) {
      if (close) out.push(stack.pop() ?? '');
      else stack.push('');
    } else if (!close) textStart = (m.index ?? 0) + tag.length;
    else if (textStart >= 0 && stack.length) {
      stack[stack.length - 1] += xml
        .slice(textStart, m.index)
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&apos;/g, "'")
        .replace(/&amp;/g, '&');
      textStart = -1;
    }
  }
  return out;
}

/** Count of start tags with a local name. */
export function countTags(xml: string, local: string): number {
  return [...xml.matchAll(new RegExp(`<(?:\\w+:)?${local}[\\s/>]`, 'g'))].length;
}
