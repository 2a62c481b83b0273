import { embeddedStore } from '../helpers/server.js'
import { describeDeliveryKillRestart } from './kill-restart.js'

describeDeliveryKillRestart('embedded PGlite', embeddedStore)
