import { embeddedStore } from '../helpers/server.js'
import { describeInboxCrash } from './inbox-crash.js'

describeInboxCrash('embedded PGlite in a temporary DATA_DIR', embeddedStore, { deliveries: 300, statusesEach: 2 })
