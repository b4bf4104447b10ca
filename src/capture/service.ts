/**
 * Capture in the admin daemon: the queue of hand-overs proposing to the inbox, with the
 * extractor the settings choose (offline, or a model within its token budgets, whose counts
 * are kept in the database so that a restart does not reset them).
 * @module
 */
import type { Inbox } from "../memory/inbox.ts";
import { captureModelCall } from "./config.ts";
import { modelExtractor, TokenBudget } from "./model.ts";
import { type Extractor, offlineExtractorFrom } from "./pipeline.ts";
import { CaptureQueue } from "./route.ts";
import type { CaptureModelConfig } from "./settings.ts";
import { InboxCaptureSink } from "./sink.ts";

/** Capture running in the daemon. */
export interface DaemonCapture {
  /** The queue `POST /api/capture` hands over to. */
  queue: CaptureQueue;
  /** Wait for the captures running, and release the model client. */
  close(): Promise<void>;
}

/**
 * Start capture over `inbox` with the model settings `model`, auto-accept's floor
 * (`CAPTURE_AUTO_ACCEPT`; null: off) and the offline extractor's lowest confidence proposed
 * (`CAPTURE_MIN_CONFIDENCE`; null: its scorer's threshold).
 */
export function startCapture(
  inbox: Inbox,
  model: CaptureModelConfig,
  env: (n: string) => string | undefined,
  log: (line: string) => void,
  autoAccept: number | null = null,
  minConfidence: number | null = null,
): DaemonCapture {
  const made = captureModelCall(model, env);
  let extractor: Extractor | undefined = minConfidence === null
    ? undefined
    : offlineExtractorFrom(minConfidence);
  if (made) {
    const budget = new TokenBudget(
      model.sessionTokens,
      model.dailyTokens,
      Date.now,
      (sessionId, day, tokens) => {
        inbox.chargeTokens(sessionId, day, tokens).catch((err) =>
          log(`capture: the tokens spent could not be recorded: ${(err as Error).message}`)
        );
      },
    );
    const inner = modelExtractor(made.call, budget);
    extractor = async (turns, ctx) => {
      const day = budget.today();
      const used = await inbox.tokens(ctx.sessionId, day);
      budget.restore(day, used.day, ctx.sessionId, used.session);
      return await inner(turns, ctx);
    };
  }
  const queue = new CaptureQueue(
    new InboxCaptureSink(inbox),
    { ...(extractor ? { extractor } : {}), autoAccept },
    log,
  );
  return {
    queue,
    async close() {
      await queue.idle();
      made?.close();
    },
  };
}
