import { fromTaggedText } from '../../documents/index.js';
import { outputLanguage } from '../../manifest/in-place-output.js';
import type { Logger } from '../../log/logger.js';
import type { OutputGate } from '../../qa/gate.js';
import type { JobRecord, SegmentMemory } from '../../state/types.js';
import type { PlaceAt } from '../../util/part-file.js';
import type { JobEnds } from '../run/job-ends.js';
import type { Drive } from '../run/drive.js';
import { besideOnly, type OutputRecord, type Translation } from '../run/output-delivery.js';
import { writeAdvice } from '../run/written-output.js';
import type { takeReviewed } from '../reviewed-segments.js';
import { brokenFinding, segmentProblem, type BrokenSegment } from './broken-tags.js';
import type { SegmentedDocument } from './document-segments.js';
import type { Sent } from './segment-sending.js';
import { writeTranslated } from './write-output.js';

// What a segment job (./segment-job.ts) hands the shared delivery step (../run/output-delivery.ts):
// its document written by the document layer's writer with every segment's translation, into a
// part file the output checks see before its rename. A person's edit taken into the memory is
// written over (the output carries its wording); a person's wording of a segment whose source
// changed stays in the output and the machine's translation of it goes beside it
// (../reviewed-segments.ts).

type TakenReview = Awaited<ReturnType<typeof takeReviewed>>;

export interface SegmentOutput {
  read: SegmentedDocument;
  /** Every segment's translation, by memory key. */
  known: Map<string, string>;
  format: string;
  review: TakenReview;
  /** The job's last delivery, whose output a person may have edited since. */
  record: OutputRecord | undefined;
  sent: Sent;
}

export interface SegmentOutputDeps {
  memory: SegmentMemory;
  gate: OutputGate;
}

export function segmentTranslation(
  deps: SegmentOutputDeps,
  dr: Drive,
  ends: JobEnds<Drive>,
  log: Logger,
  o: SegmentOutput,
): Translation {
  const { read, known, review } = o;
  const keyOf = new Map(read.segments.map((s) => [s.segment.id, s]));
  const write = (
    job: JobRecord,
    translations: ReadonlyMap<string, string>,
    placeAt: PlaceAt,
    vet: (candidate: string) => Promise<void>,
  ) => {
    // Translations that broke their segment's placeholders, inline tags or ICU structure: refused.
    const broken: BrokenSegment[] = [];
    return writeTranslated({
      doc: read.doc,
      translationOf: (s) => {
        const k = keyOf.get(s.id);
        const t = k && translations.get(k.key);
        if (t === undefined || t === '') return undefined;
        const problem = segmentProblem(t, s, job.target_lang);
        if (problem) broken.push({ where: s.where, ...problem });
        return fromTaggedText(t, s);
      },
      outputAbs: dr.outputAbs,
      format: o.format,
      targetLang: job.target_lang,
      forms: review.forms,
      valuesChecked: true,
      inPlace: outputLanguage(job.output_path) !== undefined,
      placeAt,
      vet: async (partPath) => {
        if (broken.length > 0) await deps.gate.refuse(job, partPath, brokenFinding(broken));
        await vet(partPath);
      },
    });
  };
  return {
    // An edit taken into the memory is written over (the output carries its wording), unless the
    // output changed again since it was taken; an edit that cannot be is left alone (beside it).
    place: review.beside ? 'beside' : { over: review.takenAs ?? o.record },
    write: async (place, vet) => {
      const job = dr.job;
      if (!review.held.size) return { bytes: await write(job, known, place.placeAt, vet), recorded: place };
      // A person's wording of a segment whose source changed stays in the output; the machine's
      // translation of it goes beside it, for a person to decide. The job records what is beside.
      await write(job, new Map([...known, ...review.held]), place.placeAt, vet);
      const beside = besideOnly(dr.outputAbs, job.output_path);
      return { bytes: await write(job, known, beside.placeAt, vet), recorded: beside };
    },
    // What failed the checks is not written again: its segments are bought again by a retry
    // (--retry-failed-qa, --retranslate) or by another file that has them.
    refused: () => deps.memory.forgetAnswers(read.segments.map((s) => s.key)),
    // Every segment is in the memory: the next run writes it without sending anything.
    writeFailed: (err) =>
      ends.fail(dr, 'output', `writing the output failed: ${(err as Error).message}; ${writeAdvice(err)}`, {
        willRetry: true,
        keepDocument: false,
        countsAttempt: true,
      }),
    billed: () => deps.memory.billedOf(dr.job.id),
    spent: () => o.sent.characters,
    recorded: async (job) => {
      await review.delivered(job.id, known);
      log.info(
        { segments: read.segments.length, requests: o.sent.requests, characters: o.sent.characters },
        'segments translated',
      );
    },
  };
}
