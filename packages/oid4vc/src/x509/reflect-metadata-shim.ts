/**
 * Minimal `Reflect` metadata polyfill.
 *
 * `@peculiar/x509` depends on `tsyringe`, which refuses to load unless `Reflect.getMetadata` exists
 * ("tsyringe requires a reflect polyfill"). `reflect-metadata` is not a dependency of this workspace, and
 * x509 only needs the handful of functions below, so we provide them here. Import this module (for its
 * side effect) before `@peculiar/x509`; `./x509` does that for you.
 */
type MetadataBucket = Map<unknown, unknown>;
const store = new WeakMap<object, Map<PropertyKey | undefined, MetadataBucket>>();

function bucket(
  target: object,
  property: PropertyKey | undefined,
  create: boolean,
): MetadataBucket | undefined {
  let perTarget = store.get(target);
  if (!perTarget) {
    if (!create) return undefined;
    perTarget = new Map();
    store.set(target, perTarget);
  }
  let perProperty = perTarget.get(property);
  if (!perProperty) {
    if (!create) return undefined;
    perProperty = new Map();
    perTarget.set(property, perProperty);
  }
  return perProperty;
}

const R = Reflect as unknown as Record<string, unknown>;
if (typeof R.getMetadata !== "function") {
  const getOwnMetadata = (key: unknown, target: object, property?: PropertyKey) =>
    bucket(target, property, false)?.get(key);
  const getMetadata = (key: unknown, target: object, property?: PropertyKey) => {
    for (let o: object | null = target; o; o = Object.getPrototypeOf(o)) {
      const b = bucket(o, property, false);
      if (b?.has(key)) return b.get(key);
    }
    return undefined;
  };
  const defineMetadata = (key: unknown, value: unknown, target: object, property?: PropertyKey) => {
    bucket(target, property, true)!.set(key, value);
  };
  R.defineMetadata = defineMetadata;
  R.getOwnMetadata = getOwnMetadata;
  R.getMetadata = getMetadata;
  R.hasOwnMetadata = (key: unknown, target: object, property?: PropertyKey) =>
    bucket(target, property, false)?.has(key) ?? false;
  R.hasMetadata = (key: unknown, target: object, property?: PropertyKey) =>
    getMetadata(key, target, property) !== undefined;
  R.metadata = (key: unknown, value: unknown) => (target: object, property?: PropertyKey) =>
    defineMetadata(key, value, target, property);
}

export {};
