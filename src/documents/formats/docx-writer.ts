// Writes a minimal, valid Word document (.docx) from paragraphs of plain text: used for pdf -> docx
// and doc -> docx, where the source layout is not kept.
import { createWriteStream } from 'node:fs';
import yazl from 'yazl';
import { escapeXml } from './xml.js';

export type DocxBlock = { text: string; heading?: boolean } | { pageBreak: true };

export interface DocxContent {
  blocks: DocxBlock[];
  header?: string[];
  footer?: string[];
  /** BCP 47 language of the text, e.g. "de". */
  lang?: string;
  title?: string;
}

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const XML_DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

function runs(text: string): string {
  // tabs and line breaks inside a paragraph become <w:tab/> and <w:br/>
  return text
    .split(/(\t|\r\n|\n|\r)/)
    .map((part) => {
      if (part === '\t') return '<w:r><w:tab/></w:r>';
      if (/^[\r\n]+$/.test(part)) return '<w:r><w:br/></w:r>';
      return part ? `<w:r><w:t xml:space="preserve">${escapeXml(part)}</w:t></w:r>` : '';
    })
    .join('');
}

function paragraph(text: string, style?: string): string {
  const pPr = style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : '';
  return `<w:p>${pPr}${runs(text)}</w:p>`;
}

function part(root: string, body: string): string {
  return `${XML_DECL}<w:${root} xmlns:w="${W}" xmlns:r="${R}">${body}</w:${root}>`;
}

export function docxParts(content: DocxContent): Array<[string, string]> {
  const lang = escapeXml(content.lang ?? 'en', true);
  const hasHeader = (content.header?.length ?? 0) > 0;
  const hasFooter = (content.footer?.length ?? 0) > 0;
  const body = content.blocks
    .map((b) =>
      'pageBreak' in b
        ? '<w:p><w:r><w:br w:type="page"/></w:r></w:p>'
        : paragraph(b.text, b.heading ? 'Heading1' : undefined),
    )
    .join('');
  const refs =
    (hasHeader ? '<w:headerReference w:type="default" r:id="rIdHeader"/>' : '') +
    (hasFooter ? '<w:footerReference w:type="default" r:id="rIdFooter"/>' : '');
  const sectPr = `<w:sectPr>${refs}<w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="708" w:footer="708" w:gutter="0"/></w:sectPr>`;
  const overrides = [
    [
      '/word/document.xml',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
    ],
    ['/word/styles.xml', 'application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml'],
    ['/docProps/core.xml', 'application/vnd.openxmlformats-package.core-properties+xml'],
    ...(hasHeader
      ? [['/word/header1.xml', 'application/vnd.openxmlformats-officedocument.wordprocessingml.header+xml']]
      : []),
    ...(hasFooter
      ? [['/word/footer1.xml', 'application/vnd.openxmlformats-officedocument.wordprocessingml.footer+xml']]
      : []),
  ];
  const docRels = [
    `<Relationship Id="rIdStyles" Type="${REL}/styles" Target="styles.xml"/>`,
    ...(hasHeader ? [`<Relationship Id="rIdHeader" Type="${REL}/header" Target="header1.xml"/>`] : []),
    ...(hasFooter ? [`<Relationship Id="rIdFooter" Type="${REL}/footer" Target="footer1.xml"/>`] : []),
  ];
  const parts: Array<[string, string]> = [
    [
      '[Content_Types].xml',
      `${XML_DECL}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>${overrides
        .map(([name, type]) => `<Override PartName="${name}" ContentType="${type}"/>`)
        .join('')}</Types>`,
    ],
    [
      '_rels/.rels',
      `${XML_DECL}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="word/document.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>`,
    ],
    [
      'docProps/core.xml',
      `${XML_DECL}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>${escapeXml(content.title ?? '')}</dc:title><dc:language>${lang}</dc:language><dc:creator>locsync</dc:creator></cp:coreProperties>`,
    ],
    [
      'word/_rels/document.xml.rels',
      `${XML_DECL}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${docRels.join('')}</Relationships>`,
    ],
    [
      'word/styles.xml',
      part(
        'styles',
        `<w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri" w:eastAsia="Calibri" w:cs="Calibri"/><w:sz w:val="22"/><w:lang w:val="${lang}"/></w:rPr></w:rPrDefault><w:pPrDefault><w:pPr><w:spacing w:after="160" w:line="259" w:lineRule="auto"/></w:pPr></w:pPrDefault></w:docDefaults>` +
          '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>' +
          '<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:pPr><w:keepNext/><w:spacing w:before="240" w:after="120"/><w:outlineLvl w:val="0"/></w:pPr><w:rPr><w:b/><w:sz w:val="32"/></w:rPr></w:style>',
      ),
    ],
    ['word/document.xml', part('document', `<w:body>${body}${sectPr}</w:body>`)],
  ];
  if (hasHeader)
    parts.push(['word/header1.xml', part('hdr', (content.header ?? []).map((t) => paragraph(t)).join(''))]);
  if (hasFooter)
    parts.push(['word/footer1.xml', part('ftr', (content.footer ?? []).map((t) => paragraph(t)).join(''))]);
  return parts;
}

/** Writes the document to `path`. */
export function writeDocx(path: string, content: DocxContent): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const [name, xml] of docxParts(content)) zip.addBuffer(Buffer.from(xml, 'utf8'), name);
  zip.end();
  return new Promise((resolve, reject) => {
    const file = createWriteStream(path);
    file.on('close', resolve);
    file.on('error', reject);
    zip.outputStream.on('error', reject);
    zip.outputStream.pipe(file);
  });
}
