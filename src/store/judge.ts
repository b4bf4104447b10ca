/**
 * The daily token budget of the judge of the prompt hook's candidates (`RECALL_JUDGE`,
 * migrations/0023_judge_budget.sql; the judge is src/memory/judge.ts): the tokens its model calls
 * spent per UTC day.
 * @module
 */
import type { Db } from "./db.ts";

/**
 * Reserve `tokens` of `day` (YYYY-MM-DD, UTC) when the day's tokens and them stay within
 * `limit`: true when reserved. One statement (a conditional upsert, the row locked by the
 * conflict), so that two calls at once, in one process or in the daemons of one server Postgres,
 * cannot both pass a budget that fits one.
 */
export async function reserveJudgeTokens(
  db: Db,
  day: string,
  tokens: number,
  limit: number,
): Promise<boolean> {
  const rows = await db.query<{ tokens: string | number }>(
    `insert into judge_budget (day, tokens) select $1::date, $2::bigint where $2::bigint <= $3::bigint
     on conflict (day) do update set tokens = judge_budget.tokens + excluded.tokens
       where judge_budget.tokens + excluded.tokens <= $3::bigint
     returning tokens`,
    [day, tokens, limit],
  );
  return rows.length > 0;
}

/**
 * Add `tokens` to the tokens the judge spent on `day` (YYYY-MM-DD, UTC); negative gives back
 * part of a reservation.
 */
export async function chargeJudgeTokens(db: Db, day: string, tokens: number): Promise<void> {
  await db.query(
    `insert into judge_budget (day, tokens) values ($1::date, $2)
     on conflict (day) do update set tokens = judge_budget.tokens + excluded.tokens`,
    [day, tokens],
  );
}

/** The tokens the judge spent on `day` (YYYY-MM-DD, UTC). */
export async function judgeTokensOn(db: Db, day: string): Promise<number> {
  const rows = await db.query<{ tokens: string | number }>(
    "select tokens from judge_budget where day = $1::date",
    [day],
  );
  return rows[0] ? Number(rows[0].tokens) : 0;
}
