package auth

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"fmt"
)

// Token file layout: magic | key id | nonce | AES-256-GCM ciphertext.
// The additional authenticated data is magic | key id | user, so a file
// cannot be moved to another user's name, nor its header edited, without
// failing authentication.
const (
	fileMagic = "NBT1"
	keyIDSize = 8
	nonceSize = 12
	headerLen = len(fileMagic) + keyIDSize + nonceSize
)

// seal encrypts plaintext for user with a fresh random nonce.
func seal(k Key, user string, plaintext []byte) ([]byte, error) {
	aead, err := newAEAD(k)
	if err != nil {
		return nil, err
	}
	out := make([]byte, headerLen, headerLen+len(plaintext)+aead.Overhead())
	copy(out, fileMagic)
	copy(out[len(fileMagic):], k.id())
	nonce := out[len(fileMagic)+keyIDSize : headerLen]
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("auth: nonce: %w", err)
	}
	return aead.Seal(out, nonce, plaintext, additionalData(out[:len(fileMagic)+keyIDSize], user)), nil
}

// open decrypts a sealed file for user. It returns ErrWrongKey when the
// file names another key and ErrTokenFileInvalid when authentication
// fails; the caller adds the path and the remedy.
func open(k Key, user string, sealed []byte) ([]byte, error) {
	if len(sealed) < headerLen || string(sealed[:len(fileMagic)]) != fileMagic {
		return nil, ErrTokenFileInvalid
	}
	if !bytes.Equal(sealed[len(fileMagic):len(fileMagic)+keyIDSize], k.id()) {
		return nil, ErrWrongKey
	}
	aead, err := newAEAD(k)
	if err != nil {
		return nil, err
	}
	nonce := sealed[len(fileMagic)+keyIDSize : headerLen]
	plain, err := aead.Open(nil, nonce, sealed[headerLen:], additionalData(sealed[:len(fileMagic)+keyIDSize], user))
	if err != nil {
		return nil, ErrTokenFileInvalid
	}
	return plain, nil
}

func newAEAD(k Key) (cipher.AEAD, error) {
	if k.IsZero() {
		return nil, ErrNoKey
	}
	block, err := aes.NewCipher(k.b[:])
	if err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	return cipher.NewGCM(block)
}

func additionalData(header []byte, user string) []byte {
	ad := make([]byte, 0, len(header)+len("\x00user=")+len(user))
	ad = append(ad, header...)
	ad = append(ad, "\x00user="...)
	return append(ad, user...)
}
