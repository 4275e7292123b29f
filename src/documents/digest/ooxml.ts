import { decodePart, partRules, type PackageKindName } from '../formats/ooxml.js';
import { readZipParts } from '../formats/zip.js';
import { DEFAULT_LIMITS } from '../limits.js';
import { digestXml, type XmlDigestRules } from './canonical-xml.js';
import { bytesPart, digestOf, type HashedPart } from './hash.js';
import type { ContentDigest } from './types.js';

// Office Open XML packages (docx, pptx, xlsx): every part but the package's metadata, XML parts in
// canonical form, media and other binary parts by their bytes; the zip container (entry order,
// times, compression) is not read at all. What each rule drops is what an editor rewrites on a save
// without an edit (see docs/content-digest.md).

/** Parts that cannot change a translation: document properties, thumbnails, view state, calc order. */
const METADATA_PART = /^(?:docProps\/.*|ppt\/viewProps\.xml|xl\/calcChain\.xml|.*\/thumbnail\.[a-z]+)$/i;

/** Relationship types of the metadata parts (their links in _rels/.rels go with them). */
const METADATA_RELATIONSHIP = /\/(?:core-properties|extended-properties|custom-properties|thumbnail)$/;

/**
 * Elements an editor rewrites on every save or on opening, with no bearing on the translated
 * document: Word's revision-save ids table, proofing state and marks, last-rendered page breaks,
 * the zoom of its window; Excel's window and selection state, and which program version saved it.
 */
const DROPPED_ELEMENTS = new Set([
  'rsids',
  'proofErr',
  'proofState',
  'lastRenderedPageBreak',
  'zoom',
  'bookViews',
  'sheetViews',
  'fileVersion',
  'calcPr',
]);

const TEXT_ELEMENTS = new Set(['t', 'instrText', 'delText']);

/** Word's revision-save ids (w:rsidR, w:rsidRPr ...) and paragraph ids regenerated on save. */
function droppedAttribute(qname: string, local: string): boolean {
  return local.startsWith('rsid') || qname === 'w14:paraId' || qname === 'w14:textId';
}

/**
 * Attributes that are identities an editor makes up anew on each save: a DrawingML field's id
 * (LibreOffice gives every slide-number field a new GUID), and the ids of the package's own
 * relationships (nothing refers to them; an editor adding its custom properties renumbers them).
 */
function droppedIdentity(partName: string, element: string, attribute: string): boolean {
  if (attribute !== 'Id' && attribute !== 'id') return false;
  return (
    (element === 'fld' && attribute === 'id') || (partName === '_rels/.rels' && element === 'Relationship')
  );
}

const UNIT_NAMES: Record<string, string> = { p: 'paragraph', si: 'string' };

function rulesFor(kind: PackageKindName, name: string): XmlDigestRules {
  const translated = partRules(kind, name) !== undefined;
  return {
    textElements: TEXT_ELEMENTS,
    dropAttribute: (qname, local, element) =>
      droppedAttribute(qname, local) || droppedIdentity(name, element, local),
    dropElement(local, attrs) {
      if (DROPPED_ELEMENTS.has(local)) return true;
      if (local === 'Relationship') return METADATA_RELATIONSHIP.test(attrs.get('Type') ?? '');
      if (local === 'Override') return METADATA_PART.test((attrs.get('PartName') ?? '').replace(/^\//, ''));
      return false;
    },
    // Units of the parts the service translates: paragraphs, shared strings, cells by reference.
    ...(translated
      ? {
          unit(local: string, attrs: ReadonlyMap<string, string>, index: number) {
            if (local === 'c' && attrs.has('r')) return `cell ${attrs.get('r')}`;
            const what = UNIT_NAMES[local];
            return what ? `${what} ${index}` : undefined;
          },
        }
      : {}),
  };
}

export async function digestOoxml(path: string, kind: PackageKindName): Promise<ContentDigest> {
  const parts: HashedPart[] = [];
  const what = `.${kind} package`;
  await readZipParts(
    path,
    { limits: DEFAULT_LIMITS },
    { what, check: () => undefined },
    (name) => !METADATA_PART.test(name),
    (name, content) => {
      if (/\.(?:xml|rels)$/i.test(name))
        parts.push(digestXml(name, decodePart(content).xml, rulesFor(kind, name)));
      else parts.push(bytesPart(name, content));
    },
  );
  return digestOf(kind, parts);
}
