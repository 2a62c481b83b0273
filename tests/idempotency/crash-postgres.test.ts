import { postgresStore } from '../helpers/server.js'
import { describeCrashWithKey } from './crash.js'

const url = process.env.TEST_DATABASE_URL

describeCrashWithKey(url ? 'PostgreSQL, two processes' : 'PostgreSQL (skipped: set TEST_DATABASE_URL)', async () => await postgresStore(url!), { skip: !url, severalProcesses: true })
