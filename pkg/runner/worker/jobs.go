package worker

const (
	// defaultKeepFinished is how many finished jobs stay readable (ReadLog)
	// after they end; older ones are forgotten so a long-lived worker's memory
	// stays bounded.
	defaultKeepFinished = 64
	// defaultKeepFinishedLogBytes caps the log bytes all kept finished jobs
	// hold together; past it the oldest are forgotten first.
	defaultKeepFinishedLogBytes = 64 << 20
)

// tableJob is what the table and the Cancel, Send and ReadLog paths need of a job,
// whether it runs a process or an agent.
type tableJob interface {
	// ended is closed once the job has ended and been retired.
	ended() <-chan struct{}
	// log is the job's output log.
	log() *outputLog
	// stop asks the job to end for reason; false when it was already stopping.
	stop(reason string) bool
	// send forwards input to the running job.
	send(input string) error
}

// jobTable indexes jobs by id and forgets finished ones, oldest first, once
// more than keep of them, or more than keepBytes of their logs, are held.
// Running jobs are never evicted. The Worker's mutex guards it.
type jobTable struct {
	byID      map[string]tableJob
	finished  []*finishedJob // oldest first
	keep      int
	keepBytes int64
	heldBytes int64
}

type finishedJob struct {
	id       string
	job      tableJob
	logBytes int64
}

func newJobTable(keep int, keepBytes int64) jobTable {
	return jobTable{byID: make(map[string]tableJob), keep: keep, keepBytes: keepBytes}
}

func (t *jobTable) get(id string) (tableJob, bool) {
	j, ok := t.byID[id]
	return j, ok
}

// add registers a started job. An id may be reused once its previous job has
// ended; the old job's finished entry then no longer owns the id.
func (t *jobTable) add(id string, j tableJob) { t.byID[id] = j }

// retire records that j has ended, then evicts the oldest finished jobs
// beyond the limits. The newest finished job is always kept.
func (t *jobTable) retire(id string, j tableJob) {
	f := &finishedJob{id: id, job: j, logBytes: j.log().Retained()}
	t.finished = append(t.finished, f)
	t.heldBytes += f.logBytes
	for len(t.finished) > 1 && (len(t.finished) > t.keep || t.heldBytes > t.keepBytes) {
		old := t.finished[0]
		t.finished[0] = nil
		t.finished = t.finished[1:]
		t.heldBytes -= old.logBytes
		if t.byID[old.id] == old.job {
			delete(t.byID, old.id)
		}
	}
}

// size is the number of jobs, running or finished, the table holds.
func (t *jobTable) size() int { return len(t.byID) }
