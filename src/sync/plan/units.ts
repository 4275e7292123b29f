import fs from 'node:fs';
import path from 'node:path';
import { contentRefusal } from '../../documents/format-registry.js';
import type { Mapping, Target } from '../../manifest/sections/mapping.js';
import { methodRefusal } from '../segments/method-refusal.js';
import { extOf, staleReason, uploadRequest } from './fingerprint.js';
import type { PlanBuilder } from './builder.js';
import { OutputClaims } from './claims.js';
import type { PlanContext } from './context.js';
import { decide, type Decision } from './decide.js';
import { sameContent } from './digests.js';
import { type FoundFile } from './list-sources.js';
import { acrossPipelinesDonor, existingDonor } from './donors.js';
import { outputLanguage } from '../../manifest/in-place-output.js';
import { besideTooLong, nameTooLong } from './name-limits.js';
import { notSentAgain } from './not-sent-again.js';
import type { DoneEntry } from './output-index.js';
import type { OutputRef, PlannedSettings, SourceFacts } from './types.js';

// The per-file step of planning: for each target of a source file, render its output, check claims
// and folders, take the no-op fast path when the output already holds this content, and otherwise
// gather the facts and decide.

export interface FileFacts {
  file: FoundFile;
  /** Content hash (undefined: verified, read from the record only if some output needs work). */
  sha256: string | undefined;
  /** The file's verified mark matches the current settings, or its mapping's snapshot matched. */
  verified: boolean;
}

/**
 * The other source ("mapping/file") that made `output` (`done`, its latest done job, not the
 * planned file's) when that source still exists and still renders to `output`; undefined when the
 * output is free or orphaned.
 */
function liveHolderOf(ctx: PlanContext, done: DoneEntry | undefined, output: string): string | undefined {
  if (!done) return undefined;
  const hm = ctx.loaded.manifest.mappings.find((x) => x.name === done.mapping);
  if (!hm || !fs.existsSync(path.join(ctx.folders.sourceOf(hm), done.rel_path))) return undefined;
  const ext = extOf(done.rel_path);
  for (let ti = 0; ti < hm.targets.length; ti++) {
    try {
      if (ctx.settings.outputOf(hm, ti, done.rel_path, ext) === output) return `${hm.name}/${done.rel_path}`;
    } catch {
      /* renders nowhere valid: does not hold this output */
    }
  }
  return undefined;
}

/**
 * Plan every target of a file (or only the one rendering to `onlyOutput`). Answers whether every
 * output was found up to date and made from this file (the file can then be marked verified).
 */
export async function planFileTargets(
  ctx: PlanContext,
  b: PlanBuilder,
  m: Mapping,
  facts: FileFacts,
  onlyOutput?: string,
): Promise<boolean> {
  const { file: f, verified } = facts;
  let sha = facts.sha256;
  const ext = extOf(f.relPath);
  let fresh = 0;
  /** Outputs found made from this file whose claims wait (see below), when some output did not. */
  let unclaimed: Array<[string, number]> | undefined;
  // --retranslate all: every output is decided (and re-translated), none passes as up to date here.
  const everyOutput = ctx.retranslate.has('all');
  // A plain loop (no closure per file): this runs 100,000s of times in a no-op scan.
  for (let ti = 0; ti < m.targets.length; ti++) {
    const t = m.targets[ti] as Target;
    const { fp, detected } = ctx.settings.of(m, ti, ext);
    let output: string;
    try {
      output = ctx.settings.outputOf(m, ti, f.relPath, ext);
    } catch (err) {
      const ref = { mapping: m.name, file: f.relPath, target: t.lang, output: '' };
      b.add({ kind: 'skip', ref, reason: 'path-escape', message: (err as Error).message });
      continue;
    }
    if (onlyOutput !== undefined && output !== onlyOutput) continue;
    // A target written into its own source file (outputOf named its part) is no source read back.
    const inSource =
      ctx.folders.mayLandInSource(m, ti) && outputLanguage(output) === undefined
        ? ctx.folders.sourceRootOf(ctx.folders.abs(output))
        : undefined;
    if (inSource) {
      const message = `output ${output} would lie inside the source folder of mapping ${inSource}`;
      b.add({ kind: 'skip', ref: refOf(m, f, t, output), reason: 'path-escape', message });
      continue;
    }
    // The latest done job of the output (a verified file's outputs are its own: not looked up).
    const done = verified ? undefined : await ctx.index.doneOf(output);
    // A person's wording imported since its delivery (xliff import): decided with the facts.
    const again = everyOutput || ctx.importedWording.has(output);
    const madeHere = verified || (done?.mapping === m.name && done.rel_path === f.relPath);
    // The source that made the output keeps it while it lives and still renders to it, whatever the
    // order of discovery and whichever mappings run (--only): a newcomer never overwrites it.
    const holder = madeHere ? undefined : liveHolderOf(ctx, done, output);
    // Made from this very file, with this content and settings, and there: up to date, and no other
    // live source can hold it (planning one finds this file holding it). Claimed as a no-op scan's
    // outputs are, when later work needs it: the first scan after a run with much work would
    // otherwise hold 100,000s of claims.
    if (
      madeHere &&
      !verified &&
      onlyOutput === undefined &&
      !again &&
      !ctx.busy(output) &&
      holdsContent(done, sha, fp, detected?.fp) &&
      outputExists(ctx, output)
    ) {
      b.plan.unchanged++;
      fresh++;
      (unclaimed ??= []).push([output, ti]);
      continue;
    }
    // An output made from this file is none of the deferred claims (each is its own file's output):
    // they are made only for an output on disk made elsewhere (a new file among 100,000 vouched for).
    const other =
      holder ??
      ctx.claims.claim(
        output,
        OutputClaims.key(m.name, f.relPath, ti),
        () => !madeHere && outputExists(ctx, output),
      );
    if (other !== undefined) {
      const message = `output ${output} is also the output of ${other}: not overwritten`;
      b.add({ kind: 'skip', ref: refOf(m, f, t, output), reason: 'collision', message });
      continue;
    }
    // Work on this output is under way: decided once it is finished.
    if (ctx.busy(output) && onlyOutput === undefined) {
      b.deferred.push(refOf(m, f, t, output));
      continue;
    }
    // The common case of a no-op run, decided without gathering facts: a verified file only needs its
    // outputs to exist; otherwise the output's latest done job must hold this content.
    if ((verified || holdsContent(done, sha, fp, detected?.fp)) && !again && outputExists(ctx, output)) {
      b.plan.unchanged++;
      if (madeHere) fresh++;
      continue;
    }
    sha ??= await recordedSha(ctx, m, f.relPath);
    await planUnit(ctx, b, m, ti, refOf(m, f, t, output), f, sha);
  }
  if (unclaimed) {
    // Every output up to date: claimed later, all of them (as its mapping's other files are).
    if (unclaimed.length === m.targets.length) ctx.claims.deferFile(m, f);
    else
      for (const [output, ti] of unclaimed) ctx.claims.claim(output, OutputClaims.key(m.name, f.relPath, ti));
  }
  return onlyOutput === undefined && fresh === m.targets.length;
}

/** Whether a done job holds this content with these settings (or the detected-language ones). */
function holdsContent(
  done: { sha256: string; fingerprint: string } | undefined,
  sha: string | undefined,
  fp: string,
  detectedFp: string | undefined,
): boolean {
  return (
    done !== undefined &&
    sha !== undefined &&
    done.sha256 === sha &&
    (done.fingerprint === fp || done.fingerprint === detectedFp)
  );
}

/** The reference of a unit, made only when work or a problem needs it (not per up-to-date output). */
function refOf(m: Mapping, f: FoundFile, t: Target, output: string): OutputRef {
  return { mapping: m.name, file: f.relPath, target: t.lang, output };
}

function outputExists(ctx: PlanContext, output: string): boolean {
  return ctx.listing ? ctx.listing.has(output) : fileExists(ctx.folders.abs(output));
}

function fileExists(abs: string): boolean {
  return fs.existsSync(abs);
}

/** The recorded content of a file vouched for by its mapping's snapshot (so recorded). */
async function recordedSha(ctx: PlanContext, m: Mapping, relPath: string): Promise<string> {
  const rec = await ctx.state.files.get(m.name, relPath);
  if (!rec)
    throw new Error(
      `state ${ctx.state.location} has a snapshot of mapping ${m.name} but no record of ${relPath}: the state was edited by hand?`,
    );
  return rec.sha256;
}

/** Gather the facts of one (file, target), decide, and add the action. */
async function planUnit(
  ctx: PlanContext,
  b: PlanBuilder,
  m: Mapping,
  ti: number,
  ref: OutputRef,
  f: FoundFile,
  sha256: string,
): Promise<void> {
  const ext = extOf(f.relPath);
  const { settings, fp, base, detected } = ctx.settings.of(m, ti, ext);
  const done = await ctx.index.doneOf(ref.output);
  const open = ctx.index.openOf(ref.output);
  const decision = decide({
    sha256,
    fingerprint: fp,
    baseFingerprint: base,
    ...(detected ? { detected: { fingerprint: detected.fp, baseFingerprint: detected.base } } : {}),
    done,
    outputExists: fileExists(ctx.folders.abs(ref.output)),
    open,
    contentUnchanged: done !== undefined && (await sameContent(ctx, b, m, done.sha256, sha256)),
    // A language's part of an in-place file is written into it, never copied from another file.
    donor:
      outputLanguage(ref.output) !== undefined
        ? undefined
        : ((await existingDonor(ctx, sha256, fp, ref.output)) ??
          (await acrossPipelinesDonor(ctx, sha256, fp, ref.target))),
    maxAttempts: ctx.loaded.manifest.max_attempts,
    retranslate: ctx.retranslate,
    retryFailedQa: ctx.retryFailedQa,
    wordingImported: done !== undefined && ctx.importedWording.get(ref.output)?.job_id === done.id,
  });
  const source: SourceFacts = {
    path: path.relative(ctx.loaded.dir, f.absPath).split(path.sep).join('/'),
    sha256,
    size: f.size,
    ext,
  };
  const planned: PlannedSettings = {
    fingerprint: fp,
    baseFingerprint: base,
    request: uploadRequest(settings, ext, path.basename(f.relPath)),
  };
  // pdf, doc and images have no segments to write back, Markdown and string files are not documents
  // the service takes: under the other method they are listed, never sent (docs/segments.md). So is
  // an .xml file that is not Android string resources (an RSS feed), rather than failing as one.
  const refused =
    decision.kind === 'translate'
      ? (methodRefusal(settings.segments === true, ext) ??
        (settings.segments === true ? await contentRefusal(f.absPath, ext, f.relPath) : undefined))
      : undefined;
  if (refused) {
    b.unsupported({
      mapping: m.name,
      file: f.relPath,
      reason: 'unsupported',
      message: `${ref.target}: ${refused}`,
    });
    return;
  }
  const blocked = decision.kind === 'translate' ? ctx.settings.blockedReason(m.targets[ti]!) : undefined;
  if (blocked) {
    // Nothing is sent with a list that differs from what was applied; other targets go on.
    b.add({ kind: 'skip', ref, reason: 'drift', message: blocked });
    return;
  }
  const tooLong =
    decision.kind === 'translate' || decision.kind === 'reuse'
      ? (nameTooLong(ref.output) ??
        (await besideTooLong(
          ctx,
          ref.output,
          done?.id,
          decision.kind === 'translate' && settings.segments === true
            ? { ref, source, settings: planned }
            : undefined,
        )))
      : undefined;
  if (tooLong) {
    b.add({ kind: 'skip', ref, reason: 'unwritable-name', message: tooLong });
    return;
  }
  // Nothing is paid for (or copied) that would be written through a link out of the output root.
  const escape =
    decision.kind === 'translate' || decision.kind === 'reuse' || decision.kind === 'resume'
      ? ctx.folders.linkEscape(m, ti, ref.output)
      : undefined;
  if (escape) {
    b.add({ kind: 'skip', ref, reason: 'path-escape', message: escape });
    return;
  }
  addDecision(ctx, b, ref, decision, source, planned, staleReason(m.targets[ti]!), done?.id);
}

function addDecision(
  ctx: PlanContext,
  b: PlanBuilder,
  ref: OutputRef,
  d: Decision,
  source: SourceFacts,
  settings: PlannedSettings,
  because: string,
  doneId: number | undefined,
): void {
  switch (d.kind) {
    case 'unchanged':
      b.plan.unchanged++;
      return;
    case 'stale':
      // `because` names the list (style list or glossary changed); a settings change says so itself.
      b.add({
        kind: 'stale',
        ref,
        reason: d.reason,
        because: d.reason === 'settings' ? 'settings changed' : because,
      });
      return;
    case 'gave-up':
    case 'needs-fix': {
      const message = notSentAgain(d.kind, ctx.index.openOf(ref.output), ctx.loaded.manifest.max_attempts);
      b.add({ kind: 'skip', ref, reason: d.kind, message });
      return;
    }
    case 'qa-failed': {
      const job = ctx.index.openOf(ref.output);
      const message = `${job?.error ?? 'its output failed a check'}; not uploaded again: \`locsync sync --retry-failed-qa\` does (billed)`;
      b.add({ kind: 'skip', ref, reason: 'qa-failed', message });
      return;
    }
    case 'reuse':
      b.add({
        kind: 'reuse',
        ref,
        from: d.from,
        donor: 'done',
        fromJobId: d.fromJobId,
        ...(d.across ? { across: d.across } : {}),
        source,
        settings,
      });
      return;
    case 'resaved':
      b.add({ kind: 'resaved', ref, source, settings, doneId: d.doneId });
      return;
    case 'resume': {
      if (b.resumed.has(d.jobId)) return;
      b.resumed.add(d.jobId);
      const documentId = ctx.index.openOf(ref.output)?.document_id ?? '';
      b.plannedContentAt(source.sha256, settings.fingerprint, ref.output);
      b.add({ kind: 'resume', ref, jobId: d.jobId, documentId });
      return;
    }
    case 'translate':
      b.translate({
        kind: 'translate',
        ref,
        reason: d.reason,
        source,
        settings,
        ...(d.jobId !== undefined ? ctx.index.continued(ref.output, d.jobId) : {}),
        ...(doneId !== undefined ? { doneId } : {}),
      });
      return;
  }
}
