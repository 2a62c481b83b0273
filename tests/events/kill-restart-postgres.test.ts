import { postgresStore } from '../helpers/server.js'
import { describeDeliveryKillRestart } from './kill-restart.js'

const url = process.env.TEST_DATABASE_URL

describeDeliveryKillRestart(url ? 'PostgreSQL' : 'PostgreSQL (skipped: set TEST_DATABASE_URL)', async () => await postgresStore(url!), !url)
