package workerproc

// JobMarkerEnv is set, in the environment of every process a worker starts for a job
// (process jobs' shells and agent jobs' Bash commands, and so their children), to the
// worker's pid. A worker killed with SIGKILL ends none of its jobs' processes; the
// engine, once it knows the worker died, finds them by this mark (KillStrays).
const JobMarkerEnv = "ROBOTA_WORKER_PID"
