package onestorefixture

import (
	"encoding/binary"
	"fmt"
)

// GUID is a GUID laid out as [MS-DTYP] 2.3.4.2 says, as onestore.GUID is:
// the two convert to each other.
type GUID [16]byte

// String formats g in registry form, upper case, with braces.
func (g GUID) String() string {
	return fmt.Sprintf("{%08X-%04X-%04X-%04X-%012X}",
		binary.LittleEndian.Uint32(g[0:4]), binary.LittleEndian.Uint16(g[4:6]),
		binary.LittleEndian.Uint16(g[6:8]), g[8:10], g[10:16])
}

// mustGUID parses the registry form of the constants below.
func mustGUID(s string) GUID {
	var raw [16]byte
	h := make([]byte, 0, 32)
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '{' && c != '}' && c != '-' {
			h = append(h, c)
		}
	}
	if len(h) != 32 {
		panic("onestorefixture: bad GUID constant " + s)
	}
	for i := range 16 {
		_, err := fmt.Sscanf(string(h[2*i:2*i+2]), "%02X", &raw[i])
		if err != nil {
			panic("onestorefixture: bad GUID constant " + s)
		}
	}
	return GUID{raw[3], raw[2], raw[1], raw[0], raw[5], raw[4], raw[7], raw[6],
		raw[8], raw[9], raw[10], raw[11], raw[12], raw[13], raw[14], raw[15]}
}

// xguid is an ExtendedGUID, [MS-ONESTORE] 2.2.1.
type xguid struct {
	GUID GUID
	N    uint32
}

func (e xguid) IsZero() bool { return e.GUID == GUID{} && e.N == 0 }

// chunkRef is a FileChunkReference64x32.
type chunkRef struct{ Stp, Cb uint64 }

// cellID is an [MS-FSSHTTPB] CellID.
type cellID struct{ ctx, space xguid }

// The specification's values the writer needs. They are written here
// again, not imported from onestore, so that a fixture cannot agree with
// the reader by sharing a wrong constant.
const (
	headerSize              = 1024
	fileNodeListHeaderMagic = 0xA4567AB1F5F7F4C4 // FileNodeListHeader.uintMagic, [MS-ONESTORE] 2.4.2
	fileNodeListFooterMagic = 0x8BC215C38233BA4B // FileNodeListFragment.footer, 2.4.1

	// FileNodeID values, [MS-ONESTORE] 2.4.3.
	fndObjectSpaceManifestRoot          = 0x004
	fndObjectSpaceManifestListReference = 0x008
	fndObjectSpaceManifestListStart     = 0x00C
	fndRevisionManifestListReference    = 0x010
	fndRevisionManifestListStart        = 0x014
	fndRevisionManifestStart4           = 0x01B
	fndRevisionManifestEnd              = 0x01C
	fndRevisionManifestStart6           = 0x01E
	fndGlobalIDTableStart               = 0x021
	fndGlobalIDTableStart2              = 0x022
	fndGlobalIDTableEntry               = 0x024
	fndGlobalIDTableEnd                 = 0x028
	fndObjectDeclarationWithRefCount    = 0x02D
	fndRootObjectReference2             = 0x059
	fndRootObjectReference3             = 0x05A
	fndObjectDeclarationFileData3Ref    = 0x072
	fndObjectDataEncryptionKeyV2        = 0x07C
	fndFileDataStoreListReference       = 0x090
	fndFileDataStoreObjectReference     = 0x094
	fndObjectDeclaration2RefCount       = 0x0A4
	fndObjectGroupListReference         = 0x0B0
	fndObjectGroupStart                 = 0x0B4
	fndObjectGroupEnd                   = 0x0B8

	// Property types, [MS-ONESTORE] 2.6.6.
	ptOneByte        = 0x3
	ptTwoBytes       = 0x4
	ptFourBytes      = 0x5
	ptEightBytes     = 0x6
	ptLengthPrefixed = 0x7
	ptObjectID       = 0x8
	ptObjectIDs      = 0x9
	ptObjectSpaceIDs = 0xB
	ptPropertyValues = 0x10
	ptPropertySet    = 0x11

	// Root object roles, [MS-ONESTORE] 2.1.8.
	roleContent       = 1
	roleMetadata      = 2
	roleEncryptionKey = 3

	// JCIDs, [MS-ONE] 2.2.
	jcidSectionNode           = 0x00060007
	jcidPageSeriesNode        = 0x00060008
	jcidPageNode              = 0x0006000B
	jcidOutlineNode           = 0x0006000C
	jcidOutlineElementNode    = 0x0006000D
	jcidRichTextOENode        = 0x0006000E
	jcidImageNode             = 0x00060011
	jcidNumberListNode        = 0x00060012
	jcidInkContainer          = 0x00060014
	jcidTitleNode             = 0x0006002C
	jcidPageMetaData          = 0x00020030
	jcidEmbeddedFileNode      = 0x00060035
	jcidPageManifestNode      = 0x00060037
	jcidInkDataNode           = 0x0002003B
	jcidInkStrokeNode         = 0x00020047
	jcidAuthorContainer       = 0x00120001
	jcidNoteTagSharedDefinion = 0x00120043
	jcidParagraphStyleObject  = 0x0012004D
	jcidMathInlineObject      = 0x00060040

	// PropertyIDs, [MS-ONE] 2.1.12.
	propBold                         = 0x08001C04
	propOffsetFromParentHoriz        = 0x14001C14
	propOffsetFromParentVert         = 0x14001C15
	propNumberListFormat             = 0x1C001C1A
	propContentChildNodes            = 0x24001C1F
	propElementChildNodes            = 0x24001C20
	propRichEditTextUnicode          = 0x1C001C22
	propListNodes                    = 0x24001C26
	propNotebookManagementEntityGUID = 0x1C001C30
	propPictureContainer             = 0x20001C3F
	propTopologyCreationTimeStamp    = 0x18001C65
	propNotebookElementOrderingID    = 0x14001CB9
	propCachedTitleString            = 0x1C001CF3
	propTocChildren                  = 0x24001CF6
	propStructureElementChildNodes   = 0x24001D5F
	propChildGraphSpaceElementNodes  = 0x2C001D63
	propFolderChildFilename          = 0x1C001D6B
	propAuthor                       = 0x1C001D75
	propAuthorOriginal               = 0x20001D78
	propIsConflictPage               = 0x08001D7C
	propEmbeddedFileContainer        = 0x20001D9B
	propEmbeddedFileName             = 0x1C001D9C
	propPageLevel                    = 0x14001DFF
	propTextRunFormatting            = 0x24001E13
	propHyperlink                    = 0x08001E14
	propImageAltText                 = 0x1C001E58
	propInkStrokeProperties          = 0x20003409
	propInkDimensions                = 0x1C00340A
	propInkPath                      = 0x1C00340B
	propInkHeight                    = 0x1400340C
	propInkWidth                     = 0x1400340D
	propInkColor                     = 0x1400340F
	propInkData                      = 0x20003415
	propInkStrokes                   = 0x24003416
	propParagraphStyle               = 0x2000342C
	propParagraphStyleID             = 0x1C00345A
	propNoteTagShape                 = 0x10003464
	propNoteTagLabel                 = 0x1C003468
	propNoteTagCompleted             = 0x1400346F
	propActionItemStatus             = 0x10003470
	propNoteTagDefinitionOid         = 0x20003488
	propNoteTagStates                = 0x40003489
	propTextExtendedASCII            = 0x1C003498

	inkDimensionX = "{598A6A8F-52C0-4BA0-93AF-AF357411A561}"
	inkDimensionY = "{B53F9F75-04E0-4498-A7EE-C30DBB5A9011}"

	// [MS-FSSHTTPB] stream object types and [MS-ONESTORE] 2.8 partitions.
	soDataElement             = 0x01
	soObjectDataBlob          = 0x02
	soObjectGroupDataBlob     = 0x05
	soStorageManifestRoot     = 0x07
	soRevisionManifestRoot    = 0x0A
	soCellManifest            = 0x0B
	soStorageManifest         = 0x0C
	soStorageIndexRevision    = 0x0D
	soStorageIndexCell        = 0x0E
	soDataElementPackage      = 0x15
	soObjectGroupDataObject   = 0x16
	soObjectGroupObject       = 0x18
	soRevisionManifestGroup   = 0x19
	soRevisionManifest        = 0x1A
	soObjectGroupBlobRef      = 0x1C
	soObjectGroupDeclarations = 0x1D
	soObjectGroupData         = 0x1E
	soOneNotePackaging        = 0x7A
	partitionData             = 1
	partitionFileData         = 2
	partitionMetadata         = 4
)

var (
	guidFileTypeSection = mustGUID("{7B5C52E4-D88C-4DA7-AEB1-5378D02996D3}") // .one, [MS-ONESTORE] 2.3.1
	guidFileTypeTOC     = mustGUID("{43FF2FA1-EFD9-4C76-9EE2-10EA5722765F}") // .onetoc2
	guidFileFormatStore = mustGUID("{109ADD3F-911B-49F5-A5D0-1791EDC8AED8}") // revision store file format
	guidFileFormatPack  = mustGUID("{638DE92F-A6D4-4BC1-9A36-B3FC2511A5B7}") // packaging start, 2.8.1
	guidFileDataHeader  = mustGUID("{BDE316E7-2665-4511-A4C4-8D4D0B7A9EAC}") // FileDataStoreObject.guidHeader
	dataRootCellRoot    = xguid{GUID: mustGUID("{84DEFAB9-AAA3-4A0D-A3A8-520C77AC7073}"), N: 2}
	rootRoleGUID        = mustGUID("{4A3717F8-1C14-49E7-9526-81D942DE1741}") // RevisionManifestRoot roles
)
