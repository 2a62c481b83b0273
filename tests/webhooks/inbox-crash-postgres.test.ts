import { postgresStore } from '../helpers/server.js'
import { describeInboxCrash } from './inbox-crash.js'

const url = process.env.TEST_DATABASE_URL

describeInboxCrash(url ? 'PostgreSQL' : 'PostgreSQL (skipped: set TEST_DATABASE_URL)', async () => await postgresStore(url!), { deliveries: 300, statusesEach: 3 }, !url)
