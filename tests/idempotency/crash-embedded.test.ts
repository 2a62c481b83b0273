import { embeddedStore } from '../helpers/server.js'
import { describeCrashWithKey } from './crash.js'

describeCrashWithKey('embedded PGlite in a temporary DATA_DIR', embeddedStore)
