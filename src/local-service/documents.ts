// Document API (document-translation spec): upload, status, download.
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { extname } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DocumentStatus } from '../api/types.js';
import {
  defaultOutputExtension,
  formatOf,
  isPermittedOutputFormat,
  isServiceFormat,
  SERVICE_FORMATS,
} from '../documents/format-registry.js';
import { sameSecret } from './auth.js';
import { dropConnection, getContext } from './context.js';
import { ApiError, badRequest, notFound } from './errors.js';
import { ABSURD_SECONDS_REMAINING, FAULT_DOCUMENT_MESSAGE, describeFault, type FaultBook } from './faults.js';
import type { DocumentFiles, SavedUpload } from './files.js';
import { resolveGlossary } from './glossaries.js';
import { parseFormality, parseSourceLang, parseTargetLang } from './languages.js';
import type { Scheduler } from './scheduler.js';
import type { JobRow, Store } from './store.js';
import { resolveStyle } from './translate.js';
import { isObject } from './validate.js';
import { MockSessions } from './mock-sessions.js';
import { checkDocument, type UsageAccount } from './usage.js';

/** Upload size limits per input extension, bytes: the real professional plan's (format registry). */
export const DEFAULT_UPLOAD_LIMITS: Record<string, number> = Object.fromEntries(
  SERVICE_FORMATS.map((ext) => [ext, formatOf(ext)!.service!.maxBytes]),
);

export interface DocumentRoutesOptions {
  store: Store;
  files: DocumentFiles;
  scheduler: Scheduler;
  faults: FaultBook;
  plan: 'pro' | 'free';
  uploadLimits: Record<string, number>;
  maxUndownloaded: number;
  /** The usage account of a request (a mock session's, else the service's). */
  accountOf: (req: FastifyRequest) => UsageAccount;
  /** Where an accepted document's account is kept until it is charged (when done). */
  documentAccounts: Map<string, UsageAccount>;
}

function extensionOf(filename: string): string {
  return extname(filename).slice(1).toLowerCase();
}

/** `Content-Disposition` with an ASCII fallback and the UTF-8 name (RFC 6266 / 5987). */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/** Translated file name: the upload's name with the output extension. */
export function outputFilename(filename: string, outExt: string): string {
  const ext = extname(filename);
  return (ext ? filename.slice(0, -ext.length) : filename) + '.' + outExt;
}

export function registerDocuments(app: FastifyInstance, o: DocumentRoutesOptions): void {
  const { store, files, scheduler, faults } = o;
  const maxLimit = Math.max(...Object.values(o.uploadLimits));
  const limitFor = (ext: string): number => o.uploadLimits[ext] ?? maxLimit;
  const tooLarge = (ext: string) => (bytes: number) =>
    `File too large: ${ext ? `.${ext} uploads are` : 'uploads are'} limited to ${limitFor(ext)} bytes (${bytes}+ received).`;

  // ---- upload ----
  app.post('/v2/document', async (req, reply) => {
    if (!req.isMultipart())
      throw badRequest('Upload a document as multipart/form-data.', 'invalid_content_type');
    const waiting = store.countWaitingForDownload();
    if (waiting >= o.maxUndownloaded)
      throw new ApiError(
        429,
        'too_many_documents',
        `Too many translated documents are waiting to be downloaded (${waiting}); download them before uploading more.`,
        { 'Retry-After': '1' },
      );
    const ctx = getContext(req);
    const account = o.accountOf(req);
    checkDocument(account);
    const fields: Record<string, string> = {};
    let saved: SavedUpload | undefined;
    let partFilename = '';
    try {
      for await (const part of req.parts()) {
        if (part.type === 'file') {
          if (part.fieldname !== 'file' || saved) {
            part.file.resume();
            continue;
          }
          partFilename = part.filename;
          const ext = extensionOf(fields.filename ?? part.filename);
          saved = await files.save(part.file, limitFor(ext), tooLarge(ext));
        } else {
          fields[part.fieldname] = String(part.value);
        }
      }
      const filename = fields.filename || partFilename;
      if (!saved) throw badRequest("Parameter 'file' (the document) is required.", 'missing_field');
      if (ctx)
        ctx.entry.upload = {
          filename,
          sha256: saved.sha256,
          bytes: saved.bytes,
          target_lang: fields.target_lang ?? '',
        };
      if (!filename)
        throw badRequest(
          'The file name is missing (content disposition or the filename part).',
          'missing_field',
        );
      const ext = extensionOf(filename);
      if (!isServiceFormat(ext))
        throw badRequest(
          `Invalid file data or file extension not supported: '${ext ? '.' + ext : filename}' (supported: ${SERVICE_FORMATS.join(', ')}).`,
          'unsupported_file_type',
        );
      if (saved.bytes > limitFor(ext)) throw new ApiError(413, 'file_too_large', tooLarge(ext)(saved.bytes));
      const targetLang = parseTargetLang(fields.target_lang);
      const sourceLang = parseSourceLang(fields.source_lang);
      const formality = parseFormality(fields.formality, targetLang);
      let outExt = defaultOutputExtension(ext);
      if (fields.output_format) {
        const of = fields.output_format.toLowerCase().replace(/^\./, '');
        if (!isPermittedOutputFormat(ext, of))
          throw badRequest(
            `output_format '${fields.output_format}' is not permitted for .${ext} input (a pdf may become docx; other inputs keep their format).`,
            'invalid_output_format',
          );
        outExt = of;
      }
      const glossary = resolveGlossary(store.glossaries, fields.glossary_id, sourceLang, targetLang);
      const style = resolveStyle(store, o.plan, fields.style_id, targetLang);

      const fault = ctx?.fault ?? {};
      const session = ctx?.session;
      const failInjected =
        fault.errorDocument ||
        faults.takeErrorDocument(req.method, req.url.split('?')[0]!) ||
        (session !== undefined && MockSessions.takeDocFailure(session));
      const badOutput = fault.badOutput ?? faults.takeBadOutput(req.method, req.url.split('?')[0]!, filename);
      const now = Date.now();
      const documentKey = randomBytes(32).toString('hex').toUpperCase();
      const job: JobRow = {
        document_id: randomBytes(16).toString('hex').toUpperCase(),
        document_key: documentKey,
        status: 'queued',
        filename,
        ext,
        out_ext: outExt,
        target_lang: targetLang,
        ...(sourceLang ? { source_lang: sourceLang } : {}),
        ...(formality ? { formality } : {}),
        ...(style ? { style } : {}),
        ...(glossary ? { glossary } : {}),
        bytes: saved.bytes,
        sha256: saved.sha256,
        created_at: now,
        queued_until: now + (session?.docQueueMs ?? scheduler.queueMs),
        ...(session?.docTranslateMs !== undefined ? { translate_ms: session.docTranslateMs } : {}),
        // Echoing the request's key in an error, as services do: clients must keep it out of what they show.
        ...(failInjected ? { fail_message: `${FAULT_DOCUMENT_MESSAGE} (document_key ${documentKey})` } : {}),
        absurd_eta: Boolean(fault.absurdEta),
        ...(badOutput ? { bad_output: badOutput } : {}),
        downloaded: false,
      };
      await rename(saved.path, files.inputPath(job));
      saved = undefined;
      store.insertJob(job);
      o.documentAccounts.set(job.document_id, account);
      scheduler.enqueue(job);
      if (ctx?.entry.upload) ctx.entry.upload.document_id = job.document_id;
      if (ctx) ctx.entry.documentId = job.document_id;
      if (fault.drop === 'after-body') {
        // accepted, but the client never hears of it
        reply.hijack();
        dropConnection(req);
        return reply;
      }
      return { document_id: job.document_id, document_key: job.document_key };
    } finally {
      if (saved) await rm(saved.path, { force: true });
    }
  });

  // ---- status and download ----
  const findJob = (req: FastifyRequest<{ Params: { id: string } }>): JobRow => {
    const key = isObject(req.body) ? req.body.document_key : undefined;
    if (key === undefined || key === null || key === '')
      throw badRequest("Parameter 'document_key' is required.", 'missing_field');
    if (typeof key !== 'string')
      throw badRequest("Parameter 'document_key' must be a string.", 'invalid_type');
    const ctx = getContext(req);
    if (ctx) ctx.entry.documentId = req.params.id;
    const job = store.getJob(req.params.id);
    if (!job || !sameSecret(key, job.document_key))
      throw notFound('Document not found (unknown document_id or wrong document_key).', 'document_not_found');
    if (job.downloaded)
      throw notFound(
        'Document not found: it was already downloaded (a document can be downloaded once).',
        'document_downloaded',
      );
    return job;
  };

  app.post<{ Params: { id: string } }>('/v2/document/:id', async (req) => {
    const job = findJob(req);
    const absurd = job.absurd_eta || Boolean(getContext(req)?.fault.absurdEta);
    return statusOf(job, absurd);
  });

  app.post<{ Params: { id: string } }>('/v2/document/:id/result', async (req, reply: FastifyReply) => {
    const job = findJob(req);
    if (job.status === 'queued' || job.status === 'translating')
      throw new ApiError(
        503,
        'document_not_ready',
        `Document not ready: it is ${job.status}. Poll its status until it is done.`,
        {
          'Retry-After': '1',
        },
      );
    if (job.status === 'error')
      throw new ApiError(
        400,
        'document_error',
        `Document translation failed, nothing to download: ${job.message ?? ''}`.trim(),
      );
    const path = files.outputPath(job);
    const handle = await open(path, 'r');
    let size: number;
    try {
      size = (await handle.stat()).size;
      if (!store.claimDownload(job.document_id))
        throw notFound('Document not found: it was already downloaded.', 'document_downloaded');
      // Downloaded once: the files go now (the open handle still reads the translation).
      await rm(path, { force: true });
      await rm(files.inputPath(job), { force: true });
      reply.header('Content-Length', String(size));
    } catch (err) {
      await handle.close();
      throw err;
    }
    reply
      .header('Content-Type', formatOf(job.out_ext)?.service?.contentType ?? 'application/octet-stream')
      .header('Content-Disposition', contentDisposition(outputFilename(job.filename, job.out_ext)));
    const cut = cutDownload(req, faults, size);
    if (cut !== undefined) return sendCut(reply, handle, cut);
    return reply.send(handle.createReadStream());
  });
}

/** Bytes to send of a download the faults cut short (per request or per server), if one does. */
function cutDownload(req: FastifyRequest, faults: FaultBook, size: number): number | undefined {
  const ctx = getContext(req);
  const asked = ctx?.fault.cutAfterBytes ?? faults.takeCutDownload(req.method, req.url.split('?')[0]!, size);
  if (asked === undefined || asked >= size) return undefined;
  if (ctx) {
    ctx.fault.cutAfterBytes = asked;
    ctx.entry.fault = describeFault(ctx.fault);
  }
  return asked;
}

/**
 * The cut download fault: the headers announce the whole document (Content-Length), the first `cut`
 * bytes follow, then the connection closes (the document counts as downloaded).
 */
async function sendCut(
  reply: FastifyReply,
  handle: Awaited<ReturnType<typeof open>>,
  cut: number,
): Promise<FastifyReply> {
  const bytes = Buffer.alloc(cut);
  try {
    await handle.read(bytes, 0, cut, 0);
  } finally {
    await handle.close();
  }
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, reply.getHeaders() as Record<string, string>);
  res.write(bytes, () => res.socket?.end());
  return reply;
}

function statusOf(job: JobRow, absurd: boolean): DocumentStatus {
  switch (job.status) {
    case 'queued':
      return { document_id: job.document_id, status: 'queued' };
    case 'translating': {
      const left = Math.ceil(((job.translate_until ?? Date.now()) - Date.now()) / 1000);
      return {
        document_id: job.document_id,
        status: 'translating',
        seconds_remaining: absurd ? ABSURD_SECONDS_REMAINING : Math.max(1, left),
      };
    }
    case 'done':
      return { document_id: job.document_id, status: 'done', billed_characters: job.billed_characters ?? 0 };
    case 'error':
      // `message` (our spec) and `error_message` (the real service's name) say the same.
      return {
        document_id: job.document_id,
        status: 'error',
        message: job.message ?? 'The document could not be translated.',
        error_message: job.message ?? 'The document could not be translated.',
      };
  }
}
