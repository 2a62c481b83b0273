import { describeKillAndRestart } from './kill-restart.js'
import { embeddedStore } from '../helpers/server.js'

describeKillAndRestart('embedded PGlite in a temporary DATA_DIR', embeddedStore)
