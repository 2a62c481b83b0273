import { defineCommand } from '../command.js'

// Opening the runtime already migrates: the command only has to say which database it reached.
export const migrate = defineCommand({
  summary: 'applies migrations (the server also applies them on start)',
  flags: {},
  async run (_args, runtime) {
    return { ok: true, database: runtime.database.kind }
  }
})
