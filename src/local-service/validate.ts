// Small checks of request bodies shared by the routes.
import { badRequest } from './errors.js';

export type Obj = Record<string, unknown>;

export function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The body as a JSON object, else 400 `invalid_body`. */
export function objectBody(v: unknown): Obj {
  if (!isObject(v)) throw badRequest('The request body must be a JSON object.', 'invalid_body');
  return v;
}
