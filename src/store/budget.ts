/**
 * The daily token budgets kept in the database: a table of one row per UTC day and the tokens
 * spent on it, one table per spender (the expansion worker's `expansion_budget`,
 * migrations/0019_expansion.sql; the prompt hook's judge's `judge_budget`, 0023), apart from
 * capture's. Each survives a restart and is shared by the daemons of one database.
 * @module
 */
import type { Db } from "./db.ts";

/**
 * The tables of a daily token budget (`day date primary key, tokens bigint`). The name is one of
 * these constants, spliced into the SQL text; no user value ever is.
 */
export type BudgetTable = "expansion_budget" | "judge_budget";

/**
 * Reserve `tokens` of `day` (YYYY-MM-DD, UTC) in `table` when the day's tokens and them stay
 * within `limit`: true when reserved. One statement (a conditional upsert, the row locked by the
 * conflict), so that two calls at once, in one process or in the daemons of one server Postgres,
 * cannot both pass a budget that fits one.
 */
export async function reserveTokens(
  db: Db,
  table: BudgetTable,
  day: string,
  tokens: number,
  limit: number,
): Promise<boolean> {
  const rows = await db.query<{ tokens: string | number }>(
    `insert into ${table} (day, tokens) select $1::date, $2::bigint where $2::bigint <= $3::bigint
     on conflict (day) do update set tokens = ${table}.tokens + excluded.tokens
       where ${table}.tokens + excluded.tokens <= $3::bigint
     returning tokens`,
    [day, tokens, limit],
  );
  return rows.length > 0;
}

/**
 * Add `tokens` to the tokens spent on `day` (YYYY-MM-DD, UTC) in `table`, whatever the limit;
 * negative gives back part of a reservation.
 */
export async function chargeTokens(
  db: Db,
  table: BudgetTable,
  day: string,
  tokens: number,
): Promise<void> {
  await db.query(
    `insert into ${table} (day, tokens) values ($1::date, $2::bigint)
     on conflict (day) do update set tokens = ${table}.tokens + excluded.tokens`,
    [day, tokens],
  );
}

/** The tokens spent on `day` (YYYY-MM-DD, UTC) in `table`. */
export async function tokensOn(db: Db, table: BudgetTable, day: string): Promise<number> {
  const rows = await db.query<{ tokens: string | number }>(
    `select tokens from ${table} where day = $1::date`,
    [day],
  );
  return rows[0] ? Number(rows[0].tokens) : 0;
}
