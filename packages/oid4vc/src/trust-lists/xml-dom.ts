import { DOMParser } from "@xmldom/xmldom";
import { TrustListError } from "./errors";

export const TSL_NS = "http://uri.etsi.org/02231/v2#";
export const DSIG_NS = "http://www.w3.org/2000/09/xmldsig#";

/** Parses XML strictly: any warning or error (not well-formed, unbound prefix) refuses the document. */
export function parseXmlStrict(xml: string): Document {
  if (/<!DOCTYPE/i.test(xml))
    throw new TrustListError("MalformedList", "a DOCTYPE is not allowed in a trusted list");
  const problems: string[] = [];
  const record = (message: string) => {
    problems.push(message);
  };
  const doc = new DOMParser({
    locator: {},
    errorHandler: { warning: record, error: record, fatalError: record },
  }).parseFromString(xml, "text/xml");
  if (problems.length > 0 || !doc?.documentElement) {
    throw new TrustListError("MalformedList", `the XML does not parse: ${problems[0] ?? "no root element"}`);
  }
  return doc as unknown as Document;
}

/** Child elements of `parent` with this local name in the TSL namespace (or any namespace when ns is "*"). */
export function children(parent: Element, localName: string, ns: string = TSL_NS): Element[] {
  const out: Element[] = [];
  for (let node = parent.firstChild; node; node = node.nextSibling) {
    if (node.nodeType !== 1) continue;
    const element = node as Element;
    if (element.localName === localName && (ns === "*" || element.namespaceURI === ns)) out.push(element);
  }
  return out;
}

export function child(parent: Element, localName: string, ns: string = TSL_NS): Element | undefined {
  return children(parent, localName, ns)[0];
}

/** All descendant elements with this local name and namespace, in document order. */
export function descendants(parent: Element, localName: string, ns: string): Element[] {
  const found = parent.getElementsByTagNameNS(ns, localName);
  return Array.from({ length: found.length }, (_, i) => found.item(i) as Element);
}

export function text(element: Element | undefined): string | undefined {
  const value = element?.textContent?.trim();
  return value ? value : undefined;
}
