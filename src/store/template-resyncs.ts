import { sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'

/** The catalog re-sync an unknown template name triggers: at most one a minute per WABA, across processes (CONTRACT.md 14). */
export function templateResyncStore (db: Database) {
  return {
    /** True when this caller may re-sync the WABA's catalog now (and the next may not for `everyMs`). */
    async claim (wabaId: string, everyMs: number): Promise<boolean> {
      const result = await db.execute(sql`insert into template_resyncs (waba_id, at) values (${wabaId}, now())
        on conflict (waba_id) do update set at = now() where template_resyncs.at <= now() - ${everyMs} * interval '1 millisecond'
        returning waba_id`)
      return rowsOf(result).length > 0
    }
  }
}

export type TemplateResyncStore = ReturnType<typeof templateResyncStore>
