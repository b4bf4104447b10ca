/**
 * The message protocol between the daemon's thread (worker_client.ts) and the database's
 * worker (worker.ts): requests, replies, and errors carried across with their name, message,
 * HTTP status and Postgres's fields. Both ends import it from here.
 * @module
 */
import { MemoryError } from "../../domain/errors.ts";
import type { BatchStep } from "../db.ts";

/** A request of the daemon's thread to the database worker (worker.ts). */
export type WorkerRequest =
  & { id: number }
  & (
    | { op: "open"; dataDir: string; durable?: boolean; reserveBytes?: number }
    | { op: "query"; text: string; params?: unknown[]; tx?: number; prepare?: boolean }
    | { op: "exec"; text: string; tx?: number }
    | { op: "batch"; steps: BatchStep[]; tx?: number }
    | { op: "begin"; tx: number }
    | { op: "end"; tx: number; commit: boolean }
    | { op: "dump"; tx?: undefined }
    | { op: "close"; tx?: undefined }
  );

/** The worker's answer to the request of the same `id`. */
export interface WorkerReply {
  id: number;
  ok: boolean;
  rows?: unknown[];
  bytes?: ArrayBuffer;
  type?: string;
  /** A failure: its name, message, HTTP status (a MemoryError) and Postgres's fields. */
  error?: {
    name: string;
    message: string;
    stack?: string;
    status?: number;
    fields: Record<string, string | number | boolean>;
  };
}

/** An error of the worker, rebuilt in the daemon's thread with the fields it carried. */
export function rebuildError(e: NonNullable<WorkerReply["error"]>): Error {
  const fields = { ...e.fields };
  delete fields.status;
  delete fields.message;
  delete fields.name;
  const err = e.status !== undefined
    ? new MemoryError(e.status as 500, e.message)
    : Object.assign(new Error(e.message), { name: e.name });
  Object.assign(err, fields);
  return err;
}
/** A request without its `id` (each member of the union). */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** The fields of an error that cross to the daemon's thread (Postgres's among them). */
export function serializeError(err: unknown): WorkerReply["error"] {
  if (!(err instanceof Error)) return { name: "Error", message: String(err), fields: {} };
  const fields: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(err)) {
    if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") fields[k] = v;
  }
  return {
    name: err.name,
    message: err.message,
    stack: err.stack,
    status: err instanceof MemoryError ? err.status : undefined,
    fields,
  };
}
