/* empty.c - the floor under the preload's cost (make bench-preload): a shared object
 * with nothing in it, preloaded like libdcg-preload.so. What it costs a process is the
 * loader's share (find, map, relocate an object) that no guard can go below. */
int dcg_bench_empty;
