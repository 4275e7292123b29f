/**
 * A document that cannot be read as its format (corrupt, mislabelled, a zip bomb, empty): the
 * message says what is wrong with it, for a person. The local service ends such a job in `error`;
 * pricing counts such a document as unreadable.
 */
export class DocumentFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DocumentFormatError';
  }
}
