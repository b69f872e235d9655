// Package shard splits one app's limiter into shards: each user belongs to
// one shard (Of, a stable hash), and each shard enforces its users' own
// limits in full and the app's limits only as far as a lease lets it.
//
// The app's budget (its rate windows and concurrency cap) is handed out
// by a Coordinator as capacity leases, after Google's Doorman: a shard
// reports what it holds and wants (Report), the coordinator answers with a
// Lease (a share of every app window and of the app concurrency, with an
// expiry), the shard refreshes before the lease expires, and never grants
// more than its lease, nor anything once it has expired. The coordinator
// rebalances by the shards' demand (max-min over what they want, then
// headroom of up to as much again, the rest kept free for shards that
// wake) and never hands out a lease that
// could make the shards together exceed the app's limits: it reserves for
// each shard the largest of the leases the shard may still be running on
// and of what the shard reported holding, until the shard's last lease has
// expired and its last grant has left every window. A shard that stops
// refreshing keeps its reservation until then, and no longer.
//
// Everything here is pure: methods take the time, state round-trips
// through encoding/json, and no Temporal SDK is imported (package
// limiter/entity hosts the shards and the coordinator as workflows).
package shard
