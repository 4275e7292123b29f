// The names locsync gives the files it puts beside an output a person edited (docs/review.md): the
// new translation (`guide.locsync-new.docx`) and the person's version set aside by `locsync outputs
// take-new` (`guide.locsync-edited.docx`, `-2` ...). They are never sources: every source folder
// ignores them (./plan/source-rules.ts), in sync and watch alike, wherever such a file lands.

/** Tag of the new translation written beside an edited output. */
export const NEW_TAG = '.locsync-new';
/** Tag of a person's version set aside by `locsync outputs take-new`. */
export const EDITED_TAG = '.locsync-edited';

/** The names above as globs (source-rules' default ignores). */
export const BESIDE_IGNORES = [
  `**/*${NEW_TAG}`,
  `**/*${NEW_TAG}.*`,
  `**/*${EDITED_TAG}`,
  `**/*${EDITED_TAG}.*`,
  `**/*${EDITED_TAG}-*`,
];

/** BESIDE_IGNORES for one name, without a glob match (the scan's hot path). */
export function isBesideName(name: string): boolean {
  return (
    name.endsWith(NEW_TAG) ||
    name.includes(`${NEW_TAG}.`) ||
    name.endsWith(EDITED_TAG) ||
    name.includes(`${EDITED_TAG}.`) ||
    name.includes(`${EDITED_TAG}-`)
  );
}
