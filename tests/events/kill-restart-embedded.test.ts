import { embeddedStore } from '../pacer/server-process.js'
import { describeDeliveryKillRestart } from './kill-restart.js'

describeDeliveryKillRestart('embedded PGlite', embeddedStore)
