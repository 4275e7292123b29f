// The document endpoints (/v2/document, spec/document-translation.md): an upload streamed from
// disk, the status polls, and the once-only download put in place whole or not at all.

import { randomUUID } from 'node:crypto';
import { openAsBlob } from 'node:fs';
import { basename } from 'node:path';
import type { Method, Response } from 'got';
import { registerSecret, scrub } from '../log/secrets.js';
import { PartFile, type PlaceAt } from '../util/part-file.js';
import { deliverBody, receiveBody } from './download-body.js';
import { incompleteDownload } from './download-check.js';
import { networkFailure, readErrorBody, statusFailure, type Attempt } from './failures.js';
import type { AnswerCheck, CallOptions, ServiceTransport } from './transport.js';
import type { DocumentStatus, UploadDocumentRequest, UploadDocumentResponse } from './types.js';
import { UploadForm } from './upload-form.js';

export interface DownloadOptions extends CallOptions {
  /** Where to keep the bytes if they cannot be put at destPath (see ../util/spool.ts). */
  spoolTo?: string;
  /** Asked for the name right before the rename onto destPath (see ../util/part-file.ts). */
  placeAt?: PlaceAt;
  /**
   * Looks at the whole download in its part file before it is renamed over destPath; what it
   * throws is the download's error (the output checks of ../qa/gate.ts: the part file was moved).
   */
  vet?: (partPath: string) => Promise<void>;
}

/** A download put in place: its size and the sha256 of its bytes (hex). */
export interface DownloadedDocument {
  bytes: number;
  sha256: string;
}

/** An upload's answer: the document's id and key, without which it cannot be followed. */
const UPLOAD_ANSWER: AnswerCheck<UploadDocumentResponse> = {
  holds: (a): a is UploadDocumentResponse => {
    const r = a as Partial<UploadDocumentResponse> | null | undefined;
    return filled(r?.document_id) && filled(r?.document_key);
  },
  what: 'document_id and document_key',
};

const filled = (v: unknown): boolean => typeof v === 'string' && v !== '';

/** A status answer: an object with a status (which one is the poll's to judge). */
const STATUS_ANSWER: AnswerCheck<DocumentStatus> = {
  holds: (a): a is DocumentStatus => filled((a as Partial<DocumentStatus> | null | undefined)?.status),
  what: 'status',
};

/**
 * Upload a document, streamed from disk. Billed: retried only when the service surely did not take
 * it (connection never made or body not fully sent, 429, 503, 529); other failures after the body
 * was sent throw UploadMaybeAcceptedError, and so does a 2xx answer that cannot be read (not JSON,
 * no document_id and document_key): the service took the document. `opts.beforeSend` is awaited right before each attempt's
 * bytes leave (its body built, the rate limits passed).
 */
export async function uploadDocument(
  t: ServiceTransport,
  filePath: string,
  req: UploadDocumentRequest,
  opts: CallOptions = {},
): Promise<UploadDocumentResponse> {
  const method = 'POST';
  const path = '/v2/document';
  if (req.style_id !== undefined) t.requirePro({ method, path });
  const filename = req.filename ?? basename(filePath);
  const res = await t.attempts<UploadDocumentResponse>(method, path, 'upload', opts.signal, async () => {
    const form = new UploadForm();
    form.append('target_lang', req.target_lang);
    if (req.source_lang !== undefined) form.append('source_lang', req.source_lang);
    if (req.formality !== undefined) form.append('formality', req.formality);
    if (req.glossary_id !== undefined) form.append('glossary_id', req.glossary_id);
    if (req.output_format !== undefined) form.append('output_format', req.output_format);
    if (req.style_id !== undefined) form.append('style_id', req.style_id);
    if (req.filename !== undefined) form.append('filename', req.filename);
    // A file-backed Blob: the encoder reads it from disk chunk by chunk while sending.
    form.append('file', await openAsBlob(filePath), filename);
    await opts.beforeSend?.();
    return t.sendForm(method, path, form, UPLOAD_ANSWER);
  });
  registerSecret(res.document_key);
  return res;
}

export async function getDocumentStatus(
  t: ServiceTransport,
  id: string,
  key: string,
  opts: CallOptions = {},
): Promise<DocumentStatus> {
  registerSecret(key);
  const status = await t.request<DocumentStatus>(
    { method: 'POST', path: `/v2/document/${encodeURIComponent(id)}`, json: { document_key: key } },
    opts,
    STATUS_ANSWER,
  );
  if (status.status !== 'error') return status;
  // The service's own words enter our data here — the summary, the state's error column, status,
  // the status page, a webhook — so a key it echoes in them is redacted here, once (as
  // ServiceError does for the messages of failed calls).
  return {
    ...status,
    message: scrub(status.message ?? ''),
    ...(status.error_message !== undefined ? { error_message: scrub(status.error_message) } : {}),
  };
}

/**
 * Download a translated document to destPath: streamed to a temp file beside it, fsynced, then
 * renamed over destPath. On any failure the temp file is removed and destPath is untouched.
 * A 404 (already downloaded, unknown id or key) is NotFoundError.
 */
export function downloadDocument(
  t: ServiceTransport,
  id: string,
  key: string,
  destPath: string,
  opts: DownloadOptions = {},
): Promise<DownloadedDocument> {
  registerSecret(key);
  const method = 'POST';
  const path = `/v2/document/${encodeURIComponent(id)}/result`;
  return t.attempts(method, path, 'idempotent', opts.signal, () =>
    downloadAttempt(t, method, path, key, destPath, opts),
  );
}

async function downloadAttempt(
  t: ServiceTransport,
  method: Method,
  path: string,
  key: string,
  destPath: string,
  { spoolTo, placeAt, vet }: DownloadOptions,
): Promise<Attempt<DownloadedDocument>> {
  // The temp file is made before asking: a download is once-only, so a local problem (missing
  // folder, no permission) must surface before the service hands the document over.
  const part = await PartFile.open(destPath, randomUUID().slice(0, 8), { exclusive: true });
  const stream = t.stream(method, path, { document_key: key });
  try {
    let response: Response;
    try {
      response = await new Promise<Response>((resolve, reject) => {
        stream.once('response', resolve);
        stream.once('error', reject);
      });
    } catch (err) {
      return networkFailure(method, path, err);
    }
    if (response.statusCode !== 200) {
      return statusFailure(method, path, response.statusCode, response.headers, await readErrorBody(stream));
    }
    const received = await receiveBody(stream, part, spoolTo);
    const incomplete = incompleteDownload(response.headers, received.bytes, received.streamError);
    if (incomplete !== undefined) {
      await received.spooled?.spool.discard();
      return networkFailure(method, path, incomplete);
    }
    // A body that went to the spool is checked when it is delivered from there.
    if (vet && !received.spooled) await vet(part.path);
    await deliverBody(received, part, spoolTo, placeAt);
    const { bytes, sha256 } = received;
    return { ok: true, value: { bytes, sha256 } };
  } finally {
    stream.destroy();
    await part.discard();
  }
}
