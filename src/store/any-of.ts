import { sql, type SQL } from 'drizzle-orm'

/**
 * `= any(…)` over a list travelling as one JSON parameter: one index lookup per value, however
 * many (a statement takes at most 65,535 parameters), and a plan that stays a lookup whatever the
 * statistics (as `in (select …)` the planner may join and read the whole table).
 */
export function anyOf (values: Array<string | number>, type: 'text' | 'bigint' = 'text'): SQL {
  const list = JSON.stringify([...new Set(values)])
  return type === 'bigint'
    ? sql`any(array(select value::bigint from json_array_elements_text(${list}::json)))`
    : sql`any(array(select json_array_elements_text(${list}::json)))`
}
