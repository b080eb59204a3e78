package gitworktree

import "syscall"

// statFile returns what git's index records of the file at path (lstat
// when link is true).
func statFile(path string, link bool) (fileStat, error) {
	var st syscall.Stat_t
	var err error
	if link {
		err = syscall.Lstat(path, &st)
	} else {
		err = syscall.Stat(path, &st)
	}
	if err != nil {
		return fileStat{}, ErrUnproven
	}
	fs := fileStat{
		size: uint32(st.Size), ino: uint32(st.Ino), uid: st.Uid, gid: st.Gid,
		mtime: [2]int64{int64(st.Mtim.Sec), int64(st.Mtim.Nsec)},
		ctime: [2]int64{int64(st.Ctim.Sec), int64(st.Ctim.Nsec)},
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFREG:
		fs.mode = 0o100644
		if st.Mode&0o100 != 0 {
			fs.mode = 0o100755
		}
	case syscall.S_IFLNK:
		fs.mode = 0o120000
	}
	return fs, nil
}
