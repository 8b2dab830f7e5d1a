import { Layer } from "effect"

import * as InProcessJobTransport from "../../src/queue/InProcessJobTransport.js"
import { transportContract } from "./transportContract.js"

transportContract("in-process", () => InProcessJobTransport.layer().pipe(Layer.orDie))
