package activities

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The staging directory holds one directory per worker process,
// worker-<random>, beside its lock file worker-<random>.lock, which the
// process holds locked for as long as it lives. A page's staged files
// live only as long as their session, and a session only as long as its
// worker process: so a process directory whose lock can be taken belongs
// to a process that is gone, and everything in it is the content of
// sessions that are gone too. SweepStaging removes those, at a worker's
// start and periodically (SweepStagingEvery).

const (
	procPrefix = "worker-"
	lockSuffix = ".lock"
	// staleAfter is the age past which a staged page is left from a
	// session that ended without cleaning it (a session lasts at most a
	// day, workflows' sessionOptions): the sweep removes it even in a
	// live process's directory.
	staleAfter = 25 * time.Hour
)

// claimStaging makes root private to this user (0700, refusing one
// owned by someone else) and claims this process's directory in it.
func claimStaging(root string) (dir string, lock *os.File, err error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", nil, fmt.Errorf("activities: staging dir: %w", err)
	}
	if err := makePrivate(root); err != nil {
		return "", nil, err
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", nil, err
	}
	dir = filepath.Join(root, procPrefix+hex.EncodeToString(b[:]))
	lock, err = os.OpenFile(dir+lockSuffix, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", nil, fmt.Errorf("activities: staging lock: %w", err)
	}
	// Created here (O_EXCL), so nobody else holds it.
	if _, err := lockFile(lock); err != nil {
		lock.Close()
		return "", nil, fmt.Errorf("activities: staging lock: %w", err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		lock.Close()
		return "", nil, fmt.Errorf("activities: staging dir: %w", err)
	}
	return dir, lock, nil
}

// makePrivate sets dir's mode to 0700: staged pages are the users'
// content, unencrypted.
func makePrivate(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("activities: staging dir: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("activities: staging dir %s is not a directory", dir)
	}
	if !ownedByMe(st) {
		return fmt.Errorf("activities: staging dir %s belongs to another user: choose another (-staging-dir)", dir)
	}
	if st.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("activities: staging dir %s: make it private: %w", dir, err)
		}
	}
	return nil
}

// Swept counts what a sweep removed.
type Swept struct {
	// Workers counts directories of worker processes that are gone.
	Workers int
	// Stale counts staged pages older than a session can live.
	Stale int
}

// SweepStaging removes the staged pages of sessions that are gone: the
// directories of worker processes no longer running (their lock is free)
// and, anywhere, pages staged longer ago than a session lasts.
func (a *Activities) SweepStaging() (Swept, error) {
	var out Swept
	root := a.cfg.StagingDir
	ents, err := os.ReadDir(root)
	if err != nil {
		return out, fmt.Errorf("sweep staging: %w", err)
	}
	var errs []error
	for _, e := range ents {
		name := e.Name()
		path := filepath.Join(root, name)
		switch {
		case path == a.staging || path == a.staging+lockSuffix:
		case strings.HasPrefix(name, procPrefix) && strings.HasSuffix(name, lockSuffix):
			gone, err := a.sweepProcess(strings.TrimSuffix(path, lockSuffix))
			if err != nil {
				errs = append(errs, err)
			} else if gone {
				out.Workers++
			}
		case strings.HasPrefix(name, procPrefix) && e.IsDir():
			// A live process's directory: its lock file exists.
			if _, err := os.Stat(path + lockSuffix); errors.Is(err, fs.ErrNotExist) {
				if err := os.RemoveAll(path); err != nil {
					errs = append(errs, err)
				} else {
					out.Workers++
				}
			}
		default:
			// Staged by a worker of an older layout, straight in root.
			if info, err := e.Info(); err == nil && info.ModTime().Before(time.Now().Add(-staleAfter)) {
				if err := os.RemoveAll(path); err != nil {
					errs = append(errs, err)
				} else {
					out.Stale++
				}
			}
		}
	}
	n, err := removeStale(a.staging, time.Now().Add(-staleAfter))
	out.Stale += n
	if err != nil {
		errs = append(errs, err)
	}
	return out, errors.Join(errs...)
}

// sweepProcess removes the directory of a worker process whose lock is
// free (the process is gone) and its lock file; it reports whether it
// did.
func (a *Activities) sweepProcess(dir string) (bool, error) {
	f, err := os.OpenFile(dir+lockSuffix, os.O_RDWR, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, fmt.Errorf("sweep staging: %w", err)
	}
	defer f.Close()
	held, err := lockFile(f)
	if err != nil || !held {
		return false, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return false, fmt.Errorf("sweep staging: %w", err)
	}
	return true, os.Remove(dir + lockSuffix)
}

// removeStale removes the entries of dir last changed before cutoff.
func removeStale(dir string, cutoff time.Time) (int, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("sweep staging: %w", err)
	}
	n := 0
	var errs []error
	for _, e := range ents {
		info, err := e.Info()
		if err != nil || !info.ModTime().Before(cutoff) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// SweepStagingEvery sweeps the staging directory (SweepStaging) now and
// then every d until ctx is done, logging what it removed.
func (a *Activities) SweepStagingEvery(ctx context.Context, d time.Duration, log *slog.Logger) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		s, err := a.SweepStaging()
		switch {
		case err != nil:
			log.Warn("staging sweep incomplete", "error", err, "workersGone", s.Workers, "stalePages", s.Stale)
		case s.Workers+s.Stale > 0:
			log.Info("staging swept: removed what sessions that are gone left", "workersGone", s.Workers, "stalePages", s.Stale)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Close gives up this process's staging: its directory is removed and
// its lock released. Call it once the worker has stopped.
func (a *Activities) Close() error {
	err := errors.Join(a.files.close(), os.RemoveAll(a.staging))
	if a.lock != nil {
		os.Remove(a.lock.Name())
		a.lock.Close()
	}
	return err
}
