/**
 * A resource one mocha suite shares (a service, a database): opened before the suite's first
 * test, closed after its last, where the calling `describe` registers it, so it keeps its place
 * among the suite's other hooks. A half-failed open leaves nothing to close.
 */
export function suiteResource<T>(
  open: () => Promise<T>,
  close: (resource: T) => Promise<void>,
): () => T {
  let resource: T | undefined;
  before(async () => {
    resource = await open();
  });
  after(async () => {
    if (resource !== undefined) await close(resource);
  });
  return () => {
    if (resource === undefined) throw new Error('the suite resource is read outside its tests');
    return resource;
  };
}
