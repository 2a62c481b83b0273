import { describeKillAndRestart } from './kill-restart.js'
import { embeddedStore } from './server-process.js'

describeKillAndRestart('embedded PGlite in a temporary DATA_DIR', embeddedStore)
