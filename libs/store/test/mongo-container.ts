/** MongoDB image of the container path; 7.0 is the oldest release line still supported upstream. */
const MONGO_IMAGE = 'mongo:7.0';
const DETECT_TIMEOUT_MS = 10_000;

/** A single-node MongoDB replica set running in a container. */
export interface MongoContainer {
  /** Connection URL; `directConnection` because the member advertises the container's own hostname. */
  url: string;
  stop(): Promise<void>;
}

export type ContainerRuntime =
  { available: true; start(): Promise<MongoContainer> } | { available: false; reason: string };

/**
 * Asks testcontainers (imported only here, lazily) whether a container runtime is reachable.
 * Resolves quickly when none is configured; never rejects.
 */
export async function findContainerRuntime(): Promise<ContainerRuntime> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${DETECT_TIMEOUT_MS} ms`)), DETECT_TIMEOUT_MS);
    });
    await Promise.race([getContainerRuntimeClient(), timeout]);
    return { available: true, start: startMongoContainer };
  } catch (err) {
    return { available: false, reason: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}

async function startMongoContainer(): Promise<MongoContainer> {
  const { MongoDBContainer } = await import('@testcontainers/mongodb');
  const started = await new MongoDBContainer(MONGO_IMAGE).start();
  return {
    url: `${started.getConnectionString()}/?directConnection=true`,
    async stop() {
      await started.stop();
    },
  };
}
