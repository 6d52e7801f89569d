// The mechanical mutant generator of `npm run mutants -- --mechanical`: the standard mutation
// operators, applied by rule (nobody chooses the defects) to every TypeScript file under the
// mutated directories, with the TypeScript compiler's parser and type checker.
//
// Operators (the names in reports):
// - condition:        the condition of an if / ?: / while / do / for made `true` or `false`
//                     (a loop's only `false`: `true` would merely hang it);
// - boundary:         < ↔ <=, > ↔ >=;
// - negate-relational: < → >=, <= → >, > → <=, >= → <;
// - negate-equality:  === ↔ !==, == ↔ !=;
// - logical:          && ↔ ||, ?? → &&;
// - negation:         !x → x, true ↔ false, -x → x;
// - arithmetic:       numeric + ↔ -, * ↔ /, % → *, ++ ↔ --, += ↔ -=, *= ↔ /=;
// - remove-call:      an expression statement that is a call (or an awaited call) removed;
// - remove-statement: any other expression statement (an assignment, an update, a delete) removed;
// - return-value:     a returned value (a `return` or an arrow's expression body) replaced by the
//                     type's empty value: a boolean negated, a number 0 (0 → 1), a string "",
//                     an array [], and `undefined` where the function's return type admits it.
//
// Left out on purpose, with the reason: string literals, object and array literals and regular
// expressions (Stryker's text mutators: mostly messages and trace labels, judged by no run);
// types, enums, decorators, imports; `super(...)` calls (a derived constructor must make them);
// and code that runs only under an injected defect (the bug zoo's `hasBug(…)` branches and the
// canaries'), whose mutants no ordinary run can reach — as well as the bug-zoo catalogue file.
//
// Invariants: the same sources give the same mutants in the same order (files sorted, each in
// source order); each mutant carries a key that survives edits elsewhere in its file (file,
// enclosing function, operator, original and replacement text, and its rank among mutants
// equal in all of those), so a sample drawn once can be found again in changed code.
import ts from "typescript";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/** The directories whose files are mutated (src/zk/server includes quorum/). */
export const MUTATED_DIRS = ["src/zk/server", "src/zk/client", "src/recipes", "src/protocols"];
/** Files of those directories left out whole, and why. */
export const EXCLUDED_FILES = {
  "src/zk/server/bug-id.ts": "the bug zoo's catalogue of injectable defects (ids and their input check), not server behaviour",
};
/** A condition naming one of these switches guards an injected defect: its branch is not mutated. */
const INJECTED_DEFECT_GUARD = /\bhasBug\(|\bbugs\b.*\.has\(|\bcanary\b|Canary\b/;

/** The area a mutated file belongs to: it decides which probes form its budget. */
export function areaOf(file) {
  if (file.startsWith("src/zk/server/quorum/")) return "quorum";
  if (file.startsWith("src/zk/server/")) return "server";
  if (file.startsWith("src/zk/client/")) return "client";
  if (file.startsWith("src/recipes/")) return "recipes";
  const m = /^src\/protocols\/([^/]+)\//.exec(file);
  if (m) return m[1] === "atomic-commit" ? "atomic-commit" : m[1];
  throw new Error(`no area for ${file}`);
}

/** Every .ts file under the mutated directories, sorted, relative to root. */
export function mutatedFiles(root) {
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(join(root, dir)).sort()) {
      const rel = `${dir}/${name}`;
      if (statSync(join(root, rel)).isDirectory()) walk(rel);
      else if (name.endsWith(".ts") && !name.endsWith(".d.ts") && !(rel in EXCLUDED_FILES)) out.push(rel);
    }
  };
  for (const dir of MUTATED_DIRS) walk(dir);
  return out.sort();
}

/** A TypeScript program over the project (tsconfig.json), for the type checker. */
export function projectProgram(root) {
  const configPath = join(root, "tsconfig.json");
  const parsed = ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, root);
  return ts.createProgram({ rootNames: parsed.fileNames, options: { ...parsed.options, noEmit: true } });
}

const squash = (text) => text.replace(/\s+/g, " ").trim();

const RELATIONAL = {
  [ts.SyntaxKind.LessThanToken]: { boundary: "<=", negate: ">=" },
  [ts.SyntaxKind.LessThanEqualsToken]: { boundary: "<", negate: ">" },
  [ts.SyntaxKind.GreaterThanToken]: { boundary: ">=", negate: "<=" },
  [ts.SyntaxKind.GreaterThanEqualsToken]: { boundary: ">", negate: "<" },
};
const EQUALITY = {
  [ts.SyntaxKind.EqualsEqualsEqualsToken]: "!==",
  [ts.SyntaxKind.ExclamationEqualsEqualsToken]: "===",
  [ts.SyntaxKind.EqualsEqualsToken]: "!=",
  [ts.SyntaxKind.ExclamationEqualsToken]: "==",
};
const LOGICAL = {
  [ts.SyntaxKind.AmpersandAmpersandToken]: "||",
  [ts.SyntaxKind.BarBarToken]: "&&",
  [ts.SyntaxKind.QuestionQuestionToken]: "&&",
};
const ARITHMETIC = {
  [ts.SyntaxKind.PlusToken]: "-",
  [ts.SyntaxKind.MinusToken]: "+",
  [ts.SyntaxKind.AsteriskToken]: "/",
  [ts.SyntaxKind.SlashToken]: "*",
  [ts.SyntaxKind.PercentToken]: "*",
  [ts.SyntaxKind.PlusEqualsToken]: "-=",
  [ts.SyntaxKind.MinusEqualsToken]: "+=",
  [ts.SyntaxKind.AsteriskEqualsToken]: "/=",
  [ts.SyntaxKind.SlashEqualsToken]: "*=",
};

/**
 * The mutants of one source file, in source order: { node, operator, replacement, original,
 * line, column, scope } where `replacement` is the text that takes the node's place.
 */
function fileMutants(sf, checker) {
  const found = [];
  const text = sf.text;
  const src = (n) => text.slice(n.getStart(sf), n.end);
  const isNumeric = (n) => {
    const t = checker.getTypeAtLocation(n);
    return (t.flags & ts.TypeFlags.NumberLike) !== 0;
  };
  const add = (node, operator, replacement) => {
    const { line, character } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
    found.push({ node, operator, replacement, original: src(node), line: line + 1, column: character + 1, scope: scopeName(node) });
  };
  const condition = (expr, loop) => {
    if (expr === undefined || expr.kind === ts.SyntaxKind.TrueKeyword || expr.kind === ts.SyntaxKind.FalseKeyword) return;
    if (!loop) add(expr, "condition", "true");
    add(expr, "condition", "false");
  };
  const returned = (expr, fn) => {
    if (expr.kind === ts.SyntaxKind.TrueKeyword || expr.kind === ts.SyntaxKind.FalseKeyword) return; // the literal's own negation
    const t = checker.getTypeAtLocation(expr);
    const e = src(expr);
    if (t.flags & ts.TypeFlags.BooleanLike) return add(expr, "return-value", `!(${e})`);
    if (t.flags & ts.TypeFlags.NumberLike) return add(expr, "return-value", e === "0" ? "1" : "0");
    if (t.flags & ts.TypeFlags.StringLike) return e === '""' ? undefined : add(expr, "return-value", '""');
    if (checker.isArrayType(t) || checker.isTupleType(t)) return e === "[]" ? undefined : add(expr, "return-value", "[]");
    if (t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null | ts.TypeFlags.Void | ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return;
    if (fn === undefined || fn.type === undefined) return;
    const declared = checker.getTypeFromTypeNode(fn.type);
    const awaited = (fn.modifiers ?? []).some((m) => m.kind === ts.SyntaxKind.AsyncKeyword) ? checker.getAwaitedType(declared) ?? declared : declared;
    const parts = awaited?.isUnion() ? awaited.types : [awaited];
    if (parts.some((p) => p.flags & ts.TypeFlags.Undefined) && !(t.flags & ts.TypeFlags.Undefined)) add(expr, "return-value", "undefined");
    else if (parts.some((p) => p.flags & ts.TypeFlags.Null) && !(t.flags & ts.TypeFlags.Null)) add(expr, "return-value", "null");
  };
  const visit = (node) => {
    if (ts.isTypeNode(node) || ts.isDecorator(node) || ts.isEnumDeclaration(node) || ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return;
    if (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isModuleDeclaration(node)) return;
    if ((ts.isIfStatement(node) || ts.isConditionalExpression(node)) && INJECTED_DEFECT_GUARD.test(src(ts.isIfStatement(node) ? node.expression : node.condition))) {
      // The injected defect's switch and its branch are not the code under test; the else branch is.
      const otherwise = ts.isIfStatement(node) ? node.elseStatement : node.whenFalse;
      if (otherwise !== undefined) visit(otherwise);
      return;
    }
    if (ts.isBinaryExpression(node)) {
      const op = node.operatorToken.kind;
      const [l, r] = [src(node.left), src(node.right)];
      const swap = (to) => `${l} ${to} ${r}`;
      if (RELATIONAL[op]) {
        add(node, "boundary", swap(RELATIONAL[op].boundary));
        add(node, "negate-relational", swap(RELATIONAL[op].negate));
      } else if (EQUALITY[op]) add(node, "negate-equality", swap(EQUALITY[op]));
      else if (LOGICAL[op]) add(node, "logical", swap(LOGICAL[op]));
      else if (ARITHMETIC[op] && isNumeric(node.left) && isNumeric(node.right)) add(node, "arithmetic", swap(ARITHMETIC[op]));
    } else if (ts.isPrefixUnaryExpression(node)) {
      const operand = src(node.operand);
      if (node.operator === ts.SyntaxKind.ExclamationToken) add(node, "negation", operand);
      else if (node.operator === ts.SyntaxKind.MinusToken && !ts.isNumericLiteral(node.operand)) add(node, "negation", operand);
      else if (node.operator === ts.SyntaxKind.PlusPlusToken) add(node, "arithmetic", `--${operand}`);
      else if (node.operator === ts.SyntaxKind.MinusMinusToken) add(node, "arithmetic", `++${operand}`);
    } else if (ts.isPostfixUnaryExpression(node)) {
      const operand = src(node.operand);
      add(node, "arithmetic", node.operator === ts.SyntaxKind.PlusPlusToken ? `${operand}--` : `${operand}++`);
    } else if (node.kind === ts.SyntaxKind.TrueKeyword || node.kind === ts.SyntaxKind.FalseKeyword) {
      if (!ts.isLiteralTypeNode(node.parent)) add(node, "negation", node.kind === ts.SyntaxKind.TrueKeyword ? "false" : "true");
    } else if (ts.isIfStatement(node)) condition(node.expression, false);
    else if (ts.isConditionalExpression(node)) condition(node.condition, false);
    else if (ts.isWhileStatement(node) || ts.isDoStatement(node)) condition(node.expression, true);
    else if (ts.isForStatement(node)) condition(node.condition, true);
    else if (ts.isExpressionStatement(node)) {
      const e = node.expression;
      const call = ts.isAwaitExpression(e) ? e.expression : ts.isVoidExpression(e) ? e.expression : e;
      const isSuper = ts.isCallExpression(call) && call.expression.kind === ts.SyntaxKind.SuperKeyword;
      if (!ts.isStringLiteral(e) && !isSuper) add(node, ts.isCallExpression(call) ? "remove-call" : "remove-statement", "");
    } else if (ts.isReturnStatement(node) && node.expression !== undefined) returned(node.expression, enclosingFunction(node));
    else if (ts.isArrowFunction(node) && !ts.isBlock(node.body)) returned(node.body, node);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

function enclosingFunction(node) {
  for (let n = node.parent; n !== undefined; n = n.parent) if (ts.isFunctionLike(n)) return n;
  return undefined;
}

/** "Class.method" / "function" / "Class.method.<arrow>" of the innermost named scopes around a node. */
function scopeName(node) {
  const names = [];
  for (let n = node.parent; n !== undefined; n = n.parent) {
    const name = n.name && (ts.isIdentifier(n.name) || ts.isPrivateIdentifier(n.name) || ts.isStringLiteral(n.name)) ? n.name.text : undefined;
    if (ts.isClassLike(n) || ts.isFunctionLike(n) || ts.isVariableDeclaration(n) || ts.isPropertyAssignment(n)) {
      if (name !== undefined) names.unshift(name);
      else if (ts.isConstructorDeclaration(n)) names.unshift("constructor");
    }
  }
  return names.join(".") || "<module>";
}

/**
 * Every mutant of the mutated files, in a stable order: [{ id, key, file, area, line, column,
 * scope, operator, original, replacement }]. `id` is the 0-based position in that order.
 */
export function generateMutants(root, program = projectProgram(root)) {
  const checker = program.getTypeChecker();
  const mutants = [];
  const nodes = [];
  for (const file of mutatedFiles(root)) {
    const sf = program.getSourceFile(join(root, file));
    if (sf === undefined) throw new Error(`${file} is not part of the TypeScript program (tsconfig.json)`);
    const ranks = new Map();
    for (const m of fileMutants(sf, checker)) {
      const base = [file, m.scope, m.operator, squash(m.original), squash(m.replacement)].join("\u0000");
      const rank = ranks.get(base) ?? 0;
      ranks.set(base, rank + 1);
      const { node, ...rest } = m;
      mutants.push({ id: mutants.length, key: `${base}\u0000${rank}`, file, area: areaOf(file), ...rest, original: squash(m.original), replacement: squash(m.replacement) });
      nodes.push(node);
    }
  }
  return { mutants, nodes, program };
}

/**
 * The mutants of one TypeScript text compiled alone (for tests and for a look at one file):
 * { mutants, nodes, sourceFile }, as generateMutants gives them for a project file.
 */
export function mutantsOfText(file, text) {
  const options = { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022, strict: true, noEmit: true };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, ...rest) => (name === file ? ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true) : getSourceFile(name, ...rest));
  const program = ts.createProgram({ rootNames: [file], options, host });
  const sourceFile = program.getSourceFile(file);
  const found = fileMutants(sourceFile, program.getTypeChecker());
  const mutants = found.map(({ node, ...m }, id) => ({ id, file, ...m, original: squash(m.original), replacement: squash(m.replacement) }));
  return { mutants, nodes: found.map((m) => m.node), sourceFile };
}

/** The switch every instrumented module carries: hoisted functions, so a cyclic import may call them early. */
export const SWITCH_ENV = "__STRYKER_ACTIVE_MUTANT__";
const PRELUDE = [
  "// @ts-nocheck",
  "function __mutantState() {",
  "  const g = globalThis;",
  `  if (g.__zksimMutants === undefined) g.__zksimMutants = { active: Number(g.process?.env?.${SWITCH_ENV} ?? "-1"), covered: new Set(), infected: new Set() };`,
  "  return g.__zksimMutants;",
  "}",
  "function __mutantOn(id) {",
  "  const s = __mutantState();",
  "  s.covered.add(id);",
  "  return s.active === id;",
  "}",
  "function __mutantSee(id, infected) {",
  "  if (!infected) return;",
  "  const s = __mutantState();",
  "  (s.infected ??= new Set()).add(id);",
  "}",
].join("\n");

const ASSIGNMENT_OR_SEQUENCE = (kind) => (kind >= ts.SyntaxKind.FirstAssignment && kind <= ts.SyntaxKind.LastAssignment) || kind === ts.SyntaxKind.CommaToken;
const SHORT_CIRCUIT = { [ts.SyntaxKind.AmpersandAmpersandToken]: "!!__ma", [ts.SyntaxKind.BarBarToken]: "!__ma", [ts.SyntaxKind.QuestionQuestionToken]: "__ma == null" };
/** When the replacement `a OP b` of a logical mutant evaluates its right operand, given the left one. */
const TAKES_RIGHT = { "&&": "!!__ma", "||": "!__ma" };

const BINARY_SWAPS = ["boundary", "negate-relational", "negate-equality", "arithmetic", "logical"];

/**
 * Whether evaluating an expression changes nothing but its value: no call, `new`, assignment,
 * `++`/`--`, `delete`, `await` or `yield` in it (a property read is taken as pure: the sources'
 * getters compute, they do not change state). A mutant that skips an impure expression (a
 * condition made constant, a returned value replaced) changes behaviour whatever its value.
 */
function isPure(node) {
  let pure = true;
  const visit = (n) => {
    if (!pure) return;
    if (ts.isCallExpression(n) || ts.isNewExpression(n) || ts.isTaggedTemplateExpression(n) || ts.isAwaitExpression(n) || ts.isYieldExpression(n) || ts.isDeleteExpression(n)) pure = false;
    else if ((ts.isPrefixUnaryExpression(n) || ts.isPostfixUnaryExpression(n)) && (n.operator === ts.SyntaxKind.PlusPlusToken || n.operator === ts.SyntaxKind.MinusMinusToken)) pure = false;
    else if (ts.isBinaryExpression(n) && ASSIGNMENT_OR_SEQUENCE(n.operatorToken.kind) && n.operatorToken.kind !== ts.SyntaxKind.CommaToken) pure = false;
    else ts.forEachChild(n, visit);
  };
  visit(node);
  return pure;
}

/**
 * The test, over the original's value `__mv`, of whether a mutant that does not swap a binary
 * operator would have taken another value at `node`: JavaScript text, or "true" when it always
 * would (or when the mutant skips an impure expression: its effects are gone whatever the value).
 */
function infectionTest(mutant, node) {
  const r = mutant.replacement;
  if (mutant.operator === "condition") return !isPure(node) ? "true" : r === "true" ? "!__mv" : "!!__mv";
  if (mutant.operator === "return-value" && ["0", "1", '""', "undefined", "null"].includes(r)) return isPure(node) ? `!Object.is(__mv, ${r})` : "true";
  // a negated boolean, `!x` → `x`, `-x` → `x`, a flipped literal, `++` ↔ `--`, a compound
  // assignment: always another value; a fresh [] differs from the returned array by identity
  return "true";
}

/** The operator text of a mutant that swaps a binary node's operator (its replacement's middle). */
function swappedOperator(mutant, node, sf) {
  const left = node.left.getText(sf);
  const right = node.right.getText(sf);
  const r = mutant.replacement;
  // generate.mjs builds the replacement as `${left} ${op} ${right}` (squashed): cut both ends.
  const squashedLeft = squash(left);
  const squashedRight = squash(right);
  return r.slice(squashedLeft.length, r.length - squashedRight.length).trim();
}

/**
 * The original branch of a node holding mutants, recording which of them would change a value
 * there (infection: weak mutation). Every operand is evaluated once, in its order, as the
 * original does; a run where no evaluation infects a mutant behaves exactly as without it.
 * `emitted(child)` is a child's text with the inner mutants' switches.
 */
function recordingOriginal(node, own, out, emitted, sf) {
  const see = (tests) => tests.filter(([, t]) => t !== "false").map(([id, t]) => `__mutantSee(${id}, ${t});`).join(" ");
  const always = own.every((m) => infectionTest(m, node) === "true" && !BINARY_SWAPS.includes(m.operator));
  if (always) return `(${own.map((m) => `__mutantSee(${m.id}, true)`).join(", ")}, (${out}))`;
  if (ts.isBinaryExpression(node) && !ts.isPrivateIdentifier(node.left)) {
    const kind = node.operatorToken.kind;
    const opText = node.operatorToken.getText(sf);
    const L = emitted(node.left);
    const R = emitted(node.right);
    if (SHORT_CIRCUIT[kind] !== undefined && !/\b(await|yield)\b/.test(R)) {
      const tests = own.map((m) => {
        if (m.operator !== "logical") return [m.id, infectionTest(m, node)];
        const takes = TAKES_RIGHT[swappedOperator(m, node, sf)];
        // the mutant evaluates the right operand where the original did not: assumed to differ;
        // it skips an impure right operand the original evaluated: its effects are gone
        return [m.id, isPure(node.right) ? `${takes} || (__mt && !Object.is(__mv, __ma))` : `${takes} || __mt`];
      });
      return `((__ma) => { const __mt = ${SHORT_CIRCUIT[kind]}; const __mv = __mt ? (${R}) : __ma; ${see(tests)} return __mv; })(${L})`;
    }
    if (SHORT_CIRCUIT[kind] === undefined && !ASSIGNMENT_OR_SEQUENCE(kind)) {
      const tests = own.map((m) => {
        if (BINARY_SWAPS.includes(m.operator)) return [m.id, `!Object.is(__ma ${swappedOperator(m, node, sf)} __mb, __mv)`];
        return [m.id, infectionTest(m, node)];
      });
      return `((__ma, __mb) => { const __mv = __ma ${opText} __mb; ${see(tests)} return __mv; })(${L}, ${R})`;
    }
  }
  const tests = own.map((m) => [m.id, BINARY_SWAPS.includes(m.operator) ? "true" : infectionTest(m, node)]);
  return `((__mv) => { ${see(tests)} return __mv; })(${out})`;
}

/**
 * The file's text with the chosen mutants built in as schemata: each mutated expression becomes
 * `(__mutantOn(id) ? (mutated) : …(original))`, each removed statement `{ if (!__mutantOn(id)) stmt }`.
 * Only one mutant is ever on, so a mutated text keeps its inner nodes as written; the original
 * branch keeps the inner mutants' switches, and records (`__mutantSee`) each mutant whose
 * expression would have taken another value there (see recordingOriginal).
 */
export function instrumentFile(sf, chosen) {
  const byNode = new Map();
  for (const { node, mutant } of chosen) {
    if (!byNode.has(node)) byNode.set(node, []);
    byNode.get(node).push(mutant);
  }
  // getChildren makes SyntaxList nodes that are no one's parent: a node holds a mutant by range.
  const spans = [...byNode.keys()].map((n) => [n.getStart(sf), n.end]);
  const holds = (node, start) => spans.some(([s, e]) => s >= start && e <= node.end);
  const text = sf.text;
  const emit = (node) => {
    const start = node.getStart(sf);
    if (!holds(node, start)) return text.slice(start, node.end);
    const children = new Map();
    let out = "";
    let cursor = start;
    for (const child of node.getChildren(sf)) {
      if (child.end <= cursor) continue;
      const childStart = child.getStart(sf);
      const inner = emit(child);
      children.set(child, inner);
      out += text.slice(cursor, childStart) + inner;
      cursor = child.end;
    }
    out += text.slice(cursor, node.end);
    const own = byNode.get(node);
    if (own === undefined) return out;
    if (ts.isExpressionStatement(node)) return `{ if (!__mutantOn(${own[0].id})) { __mutantSee(${own[0].id}, true); ${out} } }`;
    const emitted = (child) => children.get(child) ?? text.slice(child.getStart(sf), child.end);
    let wrapped = recordingOriginal(node, own, out, emitted, sf);
    for (const m of [...own].reverse()) wrapped = `__mutantOn(${m.id}) ? (${m.replacement}) : ${wrapped}`;
    return `(${wrapped})`;
  };
  const body = emit(sf);
  // A leading shebang or comment stays first; the prelude's functions are hoisted anyway.
  return `${PRELUDE}\n${text.slice(0, sf.getStart(sf))}${body}\n`;
}
