// .NET resource files (docs/strings/resx.md): Resources.resx → Resources.de.resx. Each string
// resource `<data name="Greeting"><value>…</value></data>` is a keyed value named by its name; the
// `<comment>` beside it, the resheader/schema block, `xml:space` and every other byte stay. A
// `<data>` with a `type` or `mimetype` attribute (an image, a file reference, a serialised object)
// is not text and stays as it is, as does a WinForms designer entry (`>>button1.Name`). A value's
// XML escapes are decoded for translation and written back as XML text.
//
// Tokenised by xml.ts's offsets tokenizer and checked well-formed with saxes (the XML parser the
// project already has, as for Android resources and XLIFF), since the writer splices values at
// their offsets to keep every other byte.
import { DocumentFormatError } from '../../errors.js';
import { attribute, decodeXml, escapeXml, localName, type XmlToken } from '../xml.js';
import type { FormatReader } from '../reader.js';
import { readXmlFile } from './xml-file.js';
import { stringDocument, type StringEntry } from './keyed.js';

/** A value's text from its inner XML: character data, entities and CDATA sections decoded. */
function textOf(inner: string): string {
  return inner
    .split(/(<!\[CDATA\[[\s\S]*?\]\]>)/)
    .map((part) => (part.startsWith('<![CDATA[') ? part.slice(9, -3) : decodeXml(part)))
    .join('');
}

/** Whether a <data> start tag holds a string resource people read. */
function isText(tag: string): boolean {
  const name = attribute(tag, 'name') ?? '';
  return (
    attribute(tag, 'type') === undefined && attribute(tag, 'mimetype') === undefined && !name.startsWith('>>')
  );
}

export const readResx: FormatReader = async (path, ctx) => {
  const what = `the .${ctx.format} file`;
  const { decoded, xml, tokens } = await readXmlFile(path, what);
  const root = tokens.find((t): t is Extract<XmlToken, { kind: 'open' }> => t.kind === 'open');
  if (!root || localName(root.name) !== 'root')
    throw new DocumentFormatError(
      `${what} is not a .NET resource file: its root element is <${root?.name ?? 'none'}>, not <root>`,
    );
  const entries: StringEntry[] = [];
  let data: { name: string; text: boolean } | undefined;
  let valueStart: number | undefined;
  for (const t of tokens) {
    if (t.kind === 'open' && localName(t.name) === 'data' && !t.selfClosing) {
      const tag = xml.slice(t.start, t.end);
      data = { name: attribute(tag, 'name') ?? '', text: isText(tag) };
    } else if (t.kind === 'close' && localName(t.name) === 'data') data = undefined;
    else if (data?.text && t.kind === 'open' && t.name === 'value' && !t.selfClosing) valueStart = t.end;
    else if (data?.text && valueStart !== undefined && t.kind === 'close' && t.name === 'value') {
      entries.push({
        key: data.name,
        text: textOf(xml.slice(valueStart, t.start)),
        span: { start: valueStart, end: t.start },
        encode: (text) => escapeXml(text),
      });
      valueStart = undefined;
    }
  }
  return stringDocument({ format: ctx.format, decoded, entries });
};
