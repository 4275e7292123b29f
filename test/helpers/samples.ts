import fs from 'node:fs';
import path from 'node:path';

// The sample documents of samples/ (samples/README.md says what each shows), named as the tests
// that translate every format read them.

export const SAMPLES = path.resolve(import.meta.dirname, '../../samples');

/** A sample's bytes, by its path under samples/. */
export const sample = (rel: string): Buffer => fs.readFileSync(path.join(SAMPLES, rel));

/** The second plain-text sample: the same format as readme.txt, in UTF-16LE with a BOM and CRLF. */
const UTF16_TEXT = 'windows-notes.txt';

/** Every sample document, by its path under samples/. */
export const SAMPLE_DOCUMENTS = [
  'readme.txt',
  UTF16_TEXT,
  'office/report.docx',
  'office/slides.pptx',
  'office/status.xlsx',
  'office/report.pdf',
  'office/legacy-report.doc',
  'video/welcome.srt',
  'web/cafe.htm',
  'web/index.html',
  'localization/app.xliff',
  'localization/strings.xlf',
  'images/logo.png',
  'images/photo.jpg',
] as const;

/** One sample document of each format the service accepts (file names unique without folders). */
export const SAMPLE_FORMATS = SAMPLE_DOCUMENTS.filter((rel) => rel !== UTF16_TEXT);
