import { File } from 'node:buffer';

// The fields of an upload's multipart body, in the order they are appended, as got's encoder
// (form-data-encoder) reads them: the subset of FormData it uses. Node's global FormData would do the
// same, but the first use of it loads Node's bundled fetch implementation (undici), about 30 ms of
// CPU for a run that uploads one document.

type Field = [name: string, value: string | File];

export class UploadForm {
  private readonly fields: Field[] = [];

  get [Symbol.toStringTag](): string {
    return 'FormData';
  }

  /** A text field, or a file (a Blob, e.g. file-backed from fs.openAsBlob) sent under `filename`. */
  append(name: string, value: string | Blob, filename?: string): void {
    this.fields.push([name, typeof value === 'string' ? value : new File([value], filename ?? 'blob')]);
  }

  getAll(name: string): Array<string | File> {
    return this.fields.filter(([n]) => n === name).map(([, v]) => v);
  }

  entries(): IterableIterator<Field> {
    return this.fields[Symbol.iterator]();
  }

  [Symbol.iterator](): IterableIterator<Field> {
    return this.entries();
  }
}
