/**
 * Spark's XPath functions (group xml_funcs; its XPathExpressions over Hive's UDFXPathUtil):
 * xpath (ARRAY<STRING> of the matched nodes' values), xpath_boolean, xpath_double and its other
 * name xpath_number, xpath_float, xpath_int, xpath_long, xpath_short and xpath_string, each the
 * XPath 1.0 expression `path` evaluated over the XML text `xml`, with the document as the
 * context node.
 *
 * Spark parses with the JDK's DOM parser and evaluates with its XPath 1.0 engine (Xalan); Weir
 * parses with saxes into a small DOM of its own (XmlNode) and evaluates with the `xpath`
 * package, an XPath 1.0 engine, brought to the JDK's behaviour where they differ:
 * - the path is compiled once, when the query is (Spark compiles it at its first row): an
 *   invalid one fails the query at validation, where Spark fails the first row with an XML value;
 * - a string becomes a number by XPath 1.0's grammar as Xalan reads it (`-`, digits and one `.`
 *   between XML whitespace: `1.5e2`, `+5`, `INF` and a number between no-break spaces are NaN);
 * - the document is read without namespaces, as Spark's parser (not namespace-aware) reads it:
 *   an unprefixed name matches an element of a default namespace (`a/b` over `<a xmlns="u">`).
 *
 * Untrusted input: as Spark (which turns off external entities), nothing outside the value is
 * ever read: saxes fetches no DTD and resolves no external entity. It expands no entity a DTD
 * declares either: a reference to one fails the row (Spark expands an internal entity and
 * leaves an external one out). The work per row is one parse, linear in the value, and one
 * evaluation, linear in the nodes a step visits for most paths; a path can make it quadratic
 * (`//*[. = //*]`), which the `xpath` package cannot bound: the value's size (a string is at
 * most 1 MiB when an expression builds it) and the run's own bounds on CPU and memory are the
 * limits.
 */
import { SaxesParser } from 'saxes';
import xpathModule from 'xpath';
import { RecordExpressionError } from '../errors';
import { exprToString } from './expression';
import { compiledByHook, constant, foldedText } from './function-args';
import type { CallCompiler, CallExpr, CompiledExpr, FunctionDef } from './function-types';
import { compiled } from './compiled-expr';
import { longFromDouble } from './long';
import { castIntegral } from './sql-values';

/** The parts of the `xpath` package Weir uses, which its type declarations leave out. */
interface XPathValue {
  booleanValue(): boolean;
  stringValue(): string;
  number(): { numberValue(): number };
  nodeset(): { toArray(): XmlNode[] };
}
interface XPathParsed {
  evaluate(options: { node: XmlNode }): XPathValue;
  expression: object;
}
interface XPathPackage {
  parse(path: string): XPathParsed;
  XNumber: (new (s: string) => { numberValue(): number }) & { prototype: { parse(s: string): number } };
  XNodeSet: {
    prototype: {
      number(this: XPathValue): { numberValue(): number };
      numberValue(this: XPathValue): number;
      addArray(this: { nodes: unknown[]; size: number; tree: unknown }, nodes: unknown[]): void;
    };
  };
  FunctionCall: new () => { functionName: string };
  VariableReference: new () => { variable: string };
  NodeTest: { NameTestQName: new () => { prefix: string | null; name: string }; NameTestPrefixAny: new () => { prefix: string } };
  FunctionResolver: new () => { getFunction(localName: string, namespace: string): unknown };
  Step: (new () => { axis: number }) & { FOLLOWING: number; PRECEDING: number; NAMESPACE: number };
  PathExpr: { applyStep(step: { axis: number; nodeTest: NodeTest }, xpc: unknown, node: XmlNode): XmlNode[] };
}
interface NodeTest { matches(n: XmlNode, xpc: unknown): boolean }
const xpath = xpathModule as unknown as XPathPackage;

/**
 * XPath 1.0's number(string), as the JDK's Xalan reads it (XString.toDouble): the text between
 * XML whitespace (space, tab, CR, LF) must be `-`, digits and at most one `.`, and is then read
 * as a double; anything else is NaN. The package's own accepts any JavaScript whitespace around
 * it and refuses `5.`; a node-set it read as a number skipped the grammar altogether
 * (`Number('1.5e2')`). Set once, for every evaluation in the process: Weir's are the only ones.
 */
const XPATH_NUMBER = /^[ \t\r\n]*(-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))[ \t\r\n]*$/;
xpath.XNumber.prototype.parse = (s: string): number => {
  const m = XPATH_NUMBER.exec(s);
  return m ? Number(m[1]) : Number.NaN;
};
xpath.XNodeSet.prototype.number = function number() {
  return new xpath.XNumber(this.stringValue());
};
xpath.XNodeSet.prototype.numberValue = function numberValue() {
  return this.number().numberValue();
};
/**
 * A node-set's union with more nodes, each once: the package's own looks each node up in the
 * set's array, n² for a path that matches n nodes (10^10 steps for the 130,000 elements of a
 * 1 MiB document).
 */
xpath.XNodeSet.prototype.addArray = function addArray(nodes) {
  const seen = new Set(this.nodes);
  for (const n of nodes) {
    if (seen.has(n)) continue;
    seen.add(n);
    this.nodes.push(n);
    this.size += 1;
  }
  this.tree = null;
};

const ELEMENT = 1, ATTRIBUTE = 2, TEXT = 3, PROCESSING_INSTRUCTION = 7, COMMENT = 8, DOCUMENT = 9;
const XML_NAMESPACE = 'http://www.w3.org/XML/1998/namespace';

/** An element's attributes, as DOM's NamedNodeMap is read: `length` and `item(i)`. */
class Attributes {
  constructor(readonly nodes: XmlNode[]) {}
  get length(): number { return this.nodes.length; }
  item(i: number): XmlNode | undefined { return this.nodes[i]; }
}
const NO_ATTRIBUTES = new Attributes([]);

/**
 * A node of a parsed document: as much of the DOM as the `xpath` package reads, without
 * namespaces, as the JDK's DOM of a parser that is not namespace-aware (Spark's): a node's name is
 * its whole qualified name (`p:b`), its namespace none, and `xmlns` attributes declare nothing
 * (Xalan reads them as namespace nodes, not attributes, so they are kept out of `attributes`).
 * Adjacent text and CDATA are one text node, as XPath sees them. `order` numbers the nodes in
 * document order, so that ordering a node-set costs a comparison of two numbers (the package's
 * own walk of siblings made `a/b` over n siblings cost n² log n).
 */
class XmlNode {
  parentNode: XmlNode | null = null;
  firstChild: XmlNode | null = null;
  lastChild: XmlNode | null = null;
  previousSibling: XmlNode | null = null;
  nextSibling: XmlNode | null = null;
  ownerElement: XmlNode | null = null;
  readonly namespaceURI = null;
  readonly prefix = null;
  attributes: Attributes = NO_ATTRIBUTES;
  constructor(
    readonly nodeType: number,
    readonly nodeName: string,
    public nodeValue: string | null,
    readonly ownerDocument: XmlNode | null,
    readonly order: number,
  ) {}

  get localName(): string { return this.nodeName; }
  get name(): string { return this.nodeName; }
  get value(): string | null { return this.nodeValue; }
  get target(): string { return this.nodeName; }
  get data(): string | null { return this.nodeValue; }
  get documentElement(): XmlNode | null {
    let n = this.firstChild;
    while (n && n.nodeType !== ELEMENT) n = n.nextSibling;
    return n;
  }

  getAttribute(name: string): string | null {
    return this.attributes.nodes.find((a) => a.nodeName === name)?.nodeValue ?? null;
  }

  /** Only the `xml:` namespace is known: lang() reads xml:lang. */
  getAttributeNS(namespace: string | null, local: string): string | null {
    return this.getAttribute(namespace === XML_NAMESPACE ? `xml:${local}` : namespace ? '' : local);
  }

  /** DOM's flags: 0x02 `other` precedes this node (or contains it), 0x04 it follows (or is inside it). */
  compareDocumentPosition(other: XmlNode): number {
    return other.order < this.order ? 0x02 : other.order > this.order ? 0x04 : 0;
  }

  append(child: XmlNode): void {
    child.parentNode = this;
    child.previousSibling = this.lastChild;
    if (this.lastChild) this.lastChild.nextSibling = child;
    else this.firstChild = child;
    this.lastChild = child;
  }
}

/** The nodes of `doc` but attributes, in document order. */
function* documentOrder(doc: XmlNode): Generator<XmlNode> {
  const stack: XmlNode[] = [doc];
  while (stack.length > 0) {
    const n = stack.pop()!;
    yield n;
    for (let c = n.lastChild; c; c = c.previousSibling) stack.push(c);
  }
}

/**
 * XPath's following and preceding axes, which the package gets wrong (its following holds the
 * node's descendants, its preceding the node's ancestors): the nodes after the node and its
 * descendants, in document order; the nodes before it that are not its ancestors, nearest
 * first, as the package gives a reverse axis. An attribute's are its element's, the element's
 * children following it.
 */
const applyStep = xpath.PathExpr.applyStep;
xpath.PathExpr.applyStep = (step, xpc, node) => {
  if (step.axis !== xpath.Step.FOLLOWING && step.axis !== xpath.Step.PRECEDING) return applyStep(step, xpc, node);
  const n = node;
  const doc = n.ownerDocument ?? n;
  const out: XmlNode[] = [];
  if (step.axis === xpath.Step.FOLLOWING) {
    let last = n;
    if (n.nodeType !== ATTRIBUTE) while (last.lastChild) last = last.lastChild;
    for (const m of documentOrder(doc)) if (m.order > last.order && step.nodeTest.matches(m, xpc)) out.push(m);
    return out;
  }
  const ancestors = new Set<XmlNode>();
  for (let a = n.ownerElement ?? n.parentNode; a; a = a.parentNode) ancestors.add(a);
  for (const m of documentOrder(doc)) if (m.order < n.order && !ancestors.has(m) && step.nodeTest.matches(m, xpc)) out.push(m);
  return out.reverse();
};

/** A malformed document, as the parser reported it. */
class XmlSyntaxError extends Error {}

/**
 * The XML text as a document, by saxes (a conforming XML 1.0 parser, here without namespaces):
 * its first error fails the parse. saxes reads nothing but the text: it fetches no DTD and
 * resolves no entity but XML's own and character references.
 */
function parseDocument(xml: string): XmlNode {
  let order = 0;
  const doc = new XmlNode(DOCUMENT, '#document', null, null, order++);
  let parent = doc;
  const parser = new SaxesParser({ xmlns: false });
  parser.on('error', (e) => { throw new XmlSyntaxError(e.message.replace(/\.$/, '')); });
  const text = (t: string) => {
    if (parent === doc) return;
    const last = parent.lastChild;
    if (last?.nodeType === TEXT) last.nodeValue += t;
    else parent.append(new XmlNode(TEXT, '#text', t, doc, order++));
  };
  parser.on('text', text);
  parser.on('cdata', text);
  parser.on('opentag', (tag) => {
    const el = new XmlNode(ELEMENT, tag.name, null, doc, order++);
    for (const name in tag.attributes) {
      if (name === 'xmlns' || name.startsWith('xmlns:')) continue;
      const a = new XmlNode(ATTRIBUTE, name, tag.attributes[name], doc, order++);
      a.ownerElement = el;
      if (el.attributes === NO_ATTRIBUTES) el.attributes = new Attributes([]);
      el.attributes.nodes.push(a);
    }
    parent.append(el);
    parent = el;
  });
  parser.on('closetag', () => { parent = parent.parentNode ?? doc; });
  parser.on('comment', (c) => parent.append(new XmlNode(COMMENT, '#comment', c, doc, order++)));
  parser.on('processinginstruction', (pi) => parent.append(new XmlNode(PROCESSING_INSTRUCTION, pi.target, pi.body, doc, order++)));
  parser.write(xml).close();
  return doc;
}

function parseXml(xml: string, path: string): XmlNode {
  try {
    return parseDocument(xml);
  } catch (e) {
    if (!(e instanceof XmlSyntaxError)) throw e;
    throw new RecordExpressionError(
      `Error loading expression '${path}': the XML is not well-formed (${e.message}). Fix the document at its source, or skip such rows (onBadRecord "dead-letter" sets them aside)`,
      { function: 'xpath()' },
    );
  }
}

/**
 * Why `path` is not one Spark's XPath can run, or undefined: it does not parse as XPath 1.0, or
 * it names what the JDK's XPath has no binding for (a function outside XPath 1.0's core
 * library, a variable, a namespace prefix: Spark's functions declare none).
 */
function invalidXPath(path: string): string | undefined {
  let parsed: XPathParsed;
  try {
    parsed = xpath.parse(path);
  } catch (e) {
    return (e as Error).message;
  }
  const core = new xpath.FunctionResolver();
  const seen = new Set<object>();
  const walk = (o: unknown): string | undefined => {
    if (typeof o !== 'object' || o === null || seen.has(o)) return undefined;
    seen.add(o);
    if (o instanceof xpath.FunctionCall && (o.functionName.includes(':') || !core.getFunction(o.functionName, ''))) return `there is no XPath 1.0 function ${o.functionName}()`;
    if (o instanceof xpath.Step && o.axis === xpath.Step.NAMESPACE) return "the namespace axis has no nodes to give: Spark's XPath functions read the XML without namespaces";
    if (o instanceof xpath.VariableReference) return `the variable $${o.variable} has no value: Spark's XPath functions bind no variables`;
    if ((o instanceof xpath.NodeTest.NameTestQName || o instanceof xpath.NodeTest.NameTestPrefixAny) && o.prefix) {
      return `the prefix ${o.prefix}: has no namespace: Spark's XPath functions declare none, and read the XML without namespaces (match an element of the default namespace by its bare name)`;
    }
    for (const v of Object.values(o)) {
      const bad = walk(v);
      if (bad) return bad;
    }
    return undefined;
  };
  return walk(parsed.expression);
}

/** What each function makes of the evaluated path's value, with its result type. */
const RESULTS = {
  xpath_boolean: { type: { type: 'boolean' }, of: (v: XPathValue) => v.booleanValue() },
  xpath_double: { type: { type: 'double' }, of: (v: XPathValue) => v.number().numberValue() },
  // Java's Double.floatValue, intValue, longValue, shortValue: the JVM's narrowing casts (NaN is 0).
  xpath_float: { type: { type: 'double', float32: true }, of: (v: XPathValue) => Math.fround(v.number().numberValue()) },
  xpath_int: { type: { type: 'long', integral: 32 }, of: (v: XPathValue) => castIntegral(v.number().numberValue(), 'double', 32) },
  xpath_long: { type: { type: 'long' }, of: (v: XPathValue) => longFromDouble(v.number().numberValue()) },
  xpath_short: { type: { type: 'long', integral: 16 }, of: (v: XPathValue) => castIntegral(v.number().numberValue(), 'double', 16) },
  xpath_string: { type: { type: 'string' }, of: (v: XPathValue) => v.stringValue() },
  // Each node's DOM value: an attribute's, a text's, a comment's; NULL for an element, as Spark's.
  xpath: {
    type: { type: 'array', elementType: { name: 'element', type: 'string', nullable: true } },
    of: (v: XPathValue, path: string) => {
      let nodes: XmlNode[];
      try {
        nodes = v.nodeset().toArray();
      } catch {
        throw new RecordExpressionError(`xpath(): the path '${path}' gives a single value, not nodes. Use xpath_string, xpath_double or xpath_boolean for it`, { function: 'xpath()' });
      }
      return nodes.map((n) => n.nodeValue ?? null);
    },
  },
} as const satisfies Record<string, { type: Omit<CompiledExpr, 'eval'>; of(v: XPathValue, path: string): unknown }>;

type XPathFunction = keyof typeof RESULTS;

/**
 * One of the functions: the path, a foldable STRING (Spark's NON_FOLDABLE_INPUT otherwise), is
 * compiled here; each row's XML is parsed and the path evaluated over it. NULL or empty XML or
 * path: NULL, as Spark's.
 */
const compileXPath = (fn: XPathFunction) => (e: CallExpr, c: CallCompiler): CompiledExpr => {
  const [xmlArg, pathArg] = e.args;
  const xml = c.compile(xmlArg);
  const pathC = c.compile(pathArg);
  for (const [i, t] of [xml.type, pathC.type].entries()) {
    if (t !== 'string' && t !== 'null') {
      c.mismatch(e, 'UNEXPECTED_INPUT_TYPE', `The ${i === 0 ? 'first' : 'second'} parameter requires the "STRING" type, however "${exprToString(e.args[i])}" has the type "${t.toUpperCase()}".`, `Cast it to a STRING.`);
    }
  }
  const { type, of } = RESULTS[fn];
  // A literal, a concatenation of literals, or a constant such as CAST(NULL AS STRING).
  const path = foldedText(pathArg, c) ?? (constant(pathArg) ? (pathC.eval({}, { batchTimestampMs: 0 }) as string | null) : undefined);
  if (path === undefined) {
    c.mismatch(e, 'NON_FOLDABLE_INPUT', `the input \`path\` should be a foldable "STRING" expression; however, got "${exprToString(pathArg)}".`, 'Write the path as a string literal.');
  }
  if (path === null || path === '') return { ...type, eval: () => null };
  const invalid = invalidXPath(path);
  if (invalid !== undefined) c.fail(e, `Invalid XPath '${path}': ${invalid}`);
  const parsed = xpath.parse(path);
  return compiled(type, () => {
    const getXml = xml.eval;
    return (row, ctx) => {
      const text = getXml(row, ctx);
      if (text === null || text === undefined || text === '') return null;
      const doc = parseXml(String(text), path);
      let value: XPathValue;
      try {
        value = parsed.evaluate({ node: doc });
      } catch (err) {
        throw new RecordExpressionError(`${fn}(): evaluating '${path}' failed: ${(err as Error).message}`, { function: `${fn}()` });
      }
      return of(value, path);
    };
  });
};

const def = (fn: XPathFunction): FunctionDef => ({ min: 2, max: 2, type: () => RESULTS[fn].type.type, impl: compiledByHook, compile: compileXPath(fn) });

export const XML_FUNCTIONS: Record<string, FunctionDef> = Object.fromEntries((Object.keys(RESULTS) as XPathFunction[]).map((fn) => [fn, def(fn)]));
// Spark's other name for xpath_double.
XML_FUNCTIONS.xpath_number = XML_FUNCTIONS.xpath_double;
