import { describeKillAndRestart } from './kill-restart.js'
import { postgresStore } from '../helpers/server.js'

const url = process.env.TEST_DATABASE_URL

describeKillAndRestart(url ? 'PostgreSQL' : 'PostgreSQL (skipped: set TEST_DATABASE_URL)', async () => await postgresStore(url!), !url)
