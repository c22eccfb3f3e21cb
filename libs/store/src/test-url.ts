/**
 * The PostgreSQL the integration and mesh suites use: `STORE_TEST_PG_URL`, else the machine's
 * server on loopback (trust authentication). One definition for every suite.
 */
export const TEST_PG_URL = process.env.STORE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
