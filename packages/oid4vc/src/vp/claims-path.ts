import { isPlainObject } from "../jose/jws";

/**
 * Claims path pointers (OpenID4VP 1.0 §7, JSON semantics): a non-empty array of strings (object keys),
 * `null` (every element of the selected arrays) and non-negative integers (one array index).
 */
export type ClaimsPathSegment = string | number | null;
export type ClaimsPath = readonly ClaimsPathSegment[];

export type ClaimsPathSelection = { ok: true; values: unknown[] } | { ok: false; error: string };

/**
 * Applies a claims path pointer to a JSON credential following the processing rules of §7.1.1.
 * Returns the selected elements, or an error when processing aborts (wrong type, empty selection).
 */
export function selectClaims(root: unknown, path: ClaimsPath): ClaimsPathSelection {
  if (path.length === 0) return { ok: false, error: "claims path pointer must not be empty" };
  let selected: unknown[] = [root];
  for (const component of path) {
    const next: unknown[] = [];
    if (typeof component === "string") {
      for (const element of selected) {
        if (!isPlainObject(element)) return { ok: false, error: `"${component}" applied to a non-object` };
        if (Object.hasOwn(element, component)) next.push(element[component]);
      }
    } else if (component === null) {
      for (const element of selected) {
        if (!Array.isArray(element)) return { ok: false, error: "null applied to a non-array" };
        next.push(...element);
      }
    } else if (Number.isInteger(component) && component >= 0) {
      for (const element of selected) {
        if (!Array.isArray(element)) return { ok: false, error: `index ${component} applied to a non-array` };
        if (component < element.length) next.push(element[component]);
      }
    } else {
      return { ok: false, error: "invalid claims path pointer component" };
    }
    selected = next;
  }
  if (selected.length === 0) return { ok: false, error: "no claim selected" };
  return { ok: true, values: selected };
}

/** True when the path selects at least one claim (`undefined` values never count). */
export function hasClaim(root: unknown, path: ClaimsPath): boolean {
  const result = selectClaims(root, path);
  return result.ok && result.values.some((v) => v !== undefined);
}

interface PathTrie {
  whole: boolean;
  keys: Map<string, PathTrie>;
  indices: Map<number, PathTrie>;
  every: PathTrie | undefined;
}

function newTrie(): PathTrie {
  return { whole: false, keys: new Map(), indices: new Map(), every: undefined };
}

function buildTrie(paths: readonly ClaimsPath[]): PathTrie {
  const root = newTrie();
  for (const path of paths) {
    if (path.length === 0) continue;
    let node = root;
    for (const component of path) {
      let child: PathTrie | undefined;
      if (typeof component === "string") {
        child = node.keys.get(component);
        if (!child) {
          child = newTrie();
          node.keys.set(component, child);
        }
      } else if (component === null) {
        node.every ??= newTrie();
        child = node.every;
      } else if (Number.isInteger(component) && component >= 0) {
        child = node.indices.get(component);
        if (!child) {
          child = newTrie();
          node.indices.set(component, child);
        }
      } else {
        throw new TypeError("invalid claims path pointer component");
      }
      node = child;
    }
    node.whole = true;
  }
  return root;
}

const MISSING = Symbol("missing");

function project(value: unknown, nodes: PathTrie[]): unknown {
  if (nodes.some((n) => n.whole)) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    value.forEach((element, index) => {
      const children: PathTrie[] = [];
      for (const n of nodes) {
        if (n.every) children.push(n.every);
        const atIndex = n.indices.get(index);
        if (atIndex) children.push(atIndex);
      }
      if (children.length === 0) return;
      const projected = project(element, children);
      if (projected !== MISSING) out.push(projected);
    });
    return out.length > 0 ? out : MISSING;
  }
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    let any = false;
    const keys = new Set<string>();
    for (const n of nodes) for (const k of n.keys.keys()) keys.add(k);
    for (const key of keys) {
      if (!Object.hasOwn(value, key)) continue;
      const children: PathTrie[] = [];
      for (const n of nodes) {
        const child = n.keys.get(key);
        if (child) children.push(child);
      }
      const projected = project(value[key], children);
      if (projected !== MISSING && projected !== undefined) {
        out[key] = projected;
        any = true;
      }
    }
    return any ? out : MISSING;
  }
  return MISSING;
}

/**
 * Claim minimisation: returns a new object holding only the claims reached by `requestedPaths`, so
 * over-disclosed claims never leave the verifier. A path that ends on an object keeps that whole
 * object; `null` keeps the matching elements of every array entry; an integer keeps that element. Arrays
 * are compacted (kept elements stay in order, unrequested ones are dropped).
 */
export function minimiseClaims(allClaims: Record<string, unknown>, requestedPaths: readonly ClaimsPath[]) {
  if (requestedPaths.length === 0) return {};
  const projected = project(allClaims, [buildTrie(requestedPaths)]);
  return projected === MISSING ? {} : (projected as Record<string, unknown>);
}
