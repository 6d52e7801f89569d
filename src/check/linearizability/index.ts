/**
 * Linearizability of ZooKeeper client histories (with indeterminate operations): the public
 * barrel. See `wgl.ts` for the checker, `zk-model.ts` for the sequential specification,
 * `zk-partition.ts` for how a history is split, `counterexample.ts` for the reports.
 */
export {
  checkLinearizable,
  type CheckOptions,
  type LinearizabilityOk,
  type LinearizabilityResult,
  type LinearizabilityViolation,
} from "./wgl.js";
export type { Partition, SequentialModel } from "./model.js";
export { DEFAULT_INITIAL_TREE, zkModel, type ZkModelOptions } from "./zk-model.js";
export { ZkTree } from "./zk-tree.js";
export {
  classifyOutcome,
  formatOperation,
  historyFromTrace,
  type OpArgs,
  type OpName,
  type OpResult,
  type Operation,
  type Outcome,
  type OutcomeClass,
  type StatFields,
  type SubOp,
  type SubResult,
} from "../history/history.js";
