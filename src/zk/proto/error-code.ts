/**
 * ZooKeeper result codes (`KeeperException.Code`), with their wire numbers.
 *
 * One registry: every place that produces or reports an error uses these names,
 * so a trace, a history and a Jute reply all carry the same number ZooKeeper 3.8
 * would. CONNECTIONLOSS and OPERATIONTIMEOUT are produced by the client only.
 */
export const Code = {
  OK: 0,
  SYSTEMERROR: -1,
  RUNTIMEINCONSISTENCY: -2,
  DATAINCONSISTENCY: -3,
  CONNECTIONLOSS: -4,
  MARSHALLINGERROR: -5,
  UNIMPLEMENTED: -6,
  OPERATIONTIMEOUT: -7,
  BADARGUMENTS: -8,
  UNKNOWNSESSION: -12,
  NEWCONFIGNOQUORUM: -13,
  RECONFIGINPROGRESS: -14,
  APIERROR: -100,
  NONODE: -101,
  NOAUTH: -102,
  BADVERSION: -103,
  NOCHILDRENFOREPHEMERALS: -108,
  NODEEXISTS: -110,
  NOTEMPTY: -111,
  SESSIONEXPIRED: -112,
  INVALIDCALLBACK: -113,
  INVALIDACL: -114,
  AUTHFAILED: -115,
  SESSIONMOVED: -118,
  NOTREADONLY: -119,
  EPHEMERALONLOCALSESSION: -120,
  NOWATCHER: -121,
  REQUESTTIMEOUT: -122,
  RECONFIGDISABLED: -123,
  SESSIONCLOSEDREQUIRESASLAUTH: -124,
  QUOTAEXCEEDED: -125,
  THROTTLEDOP: -127,
} as const;

export type CodeName = keyof typeof Code;
export type ErrorCode = (typeof Code)[CodeName];

const NAMES = new Map<number, CodeName>(
  (Object.keys(Code) as CodeName[]).map((name) => [Code[name], name]),
);

/** The ZooKeeper name of a code, e.g. -101 → "NONODE"; unknown numbers print as "CODE(-999)". */
export function codeName(code: number): string {
  return NAMES.get(code) ?? `CODE(${code})`;
}

/** True for codes ZooKeeper defines (used to reject malformed packets). */
export function isKnownCode(code: number): code is ErrorCode {
  return NAMES.has(code);
}

/**
 * The Java client's classification (docs/zookeeper.md §1.5, after "Building applications on ZooKeeper"):
 * a recoverable error means the session is still valid and the operation may be retried
 * (idempotent ops blindly; non-idempotent ones only after checking what happened).
 */
export function isRecoverable(code: number): boolean {
  return code === Code.CONNECTIONLOSS || code === Code.OPERATIONTIMEOUT;
}

/** Unrecoverable: the session is gone and the handle is dead (state exceptions). */
export function isSessionFatal(code: number): boolean {
  return code === Code.SESSIONEXPIRED || code === Code.AUTHFAILED;
}
