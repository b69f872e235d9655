package limiter

// userLowering is a throttle without a scope that was blamed on the user
// table and lowered it, kept while a throttle of the app may still show
// it was the app's (Limiter.unlearnUser): when it came (the first of the
// throttles merged into it), each user window's effective limit before
// it (0: not lowered by it), and the app's counts at it (the least over
// the throttles merged).
type userLowering struct {
	At   int64 `json:"at"`
	From []int `json:"from"`
	App  []int `json:"app"`
}

// rememberUserLowering records that a throttle without a scope, blamed on
// user u at app counts ac, lowered u's windows from the effective limits
// from (and shareLowering gave every user the same). A lowering within
// InferWindow of the one remembered is part of it: it keeps the first
// limits and time, and the least app counts.
func (l *Limiter) rememberUserLowering(u *userState, from, ac []int, now int64) {
	rec := l.st.UserLowering
	if rec == nil || now-rec.At > int64(l.st.Spec.Tuning.InferWindow) || len(rec.From) != len(from) || len(rec.App) != len(ac) {
		rec = &userLowering{At: now, From: make([]int, len(from)), App: append([]int(nil), ac...)}
		l.st.UserLowering = rec
	}
	for w, a := range u.Scope.Limits {
		if a.Lowered > 0 && a.At == now && rec.From[w] == 0 {
			rec.From[w] = from[w]
		}
	}
	for w, c := range ac {
		rec.App[w] = min(rec.App[w], c)
	}
}

// unlearnUser takes back the user table's lowering remembered (see
// rememberUserLowering) when a throttle lowers a window of the app within
// InferWindow of it, and the app's window held at least its new limit at
// the user's throttle: the app explains that throttle, so the user table
// was not what refused it. The first throttle of an episode in which the
// app binds comes to the user (no other user was refused yet, so infer
// says the user's), and its wrong lowering was shared by every user for
// the whole of its quiet (small-21: the user minute lowered to 69 against
// a real 120 for the app minute's throttle at 189, the app minute lowered
// to 189 a tenth of a second later by the next user's throttle, and every
// user idled 47 s a minute). A lowering taken back wrongly costs a
// throttle: the user refused again is refused by its own scope
// (refusedAgain). The remembered lowering is forgotten either way.
func (l *Limiter) unlearnUser(now int64) {
	rec := l.st.UserLowering
	if rec == nil {
		return
	}
	l.st.UserLowering = nil
	if now-rec.At > int64(l.st.Spec.Tuning.InferWindow) || len(rec.App) != len(l.st.App.Limits) {
		return
	}
	explained := false
	for w, a := range l.st.App.Limits {
		if a.Lowered > 0 && a.At == now && rec.App[w] >= a.Lowered {
			explained = true
		}
	}
	if !explained {
		return
	}
	for w, from := range rec.From {
		if from == 0 || w >= len(l.st.Spec.User.Windows) {
			continue
		}
		spec := l.st.Spec.User.Windows[w].Limit
		for _, x := range l.st.Users {
			x.Scope.Limits[w].undo(from, spec, rec.At)
		}
	}
}
